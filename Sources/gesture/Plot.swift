import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore

struct Plot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Plot features over time to an SVG: a panel per session, or one for a slice of samples.",
        discussion:
            "Machine Learning by Tutorials' plot_gesture_activity(test[11950:12050], activity=\"drive_it\", features=[\"gravX\",\"gravY\",\"gravZ\"]) is\n  gesture plot --gesture drive --from 11950 --to 12050 --features gravX,gravY,gravZ -o drive.svg"
    )

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions

    @Option(help: "Features to draw, comma-separated.")
    var features = "gravX,gravY,gravZ"

    @Option(help: "First sample of a slice of the selection's samples, sessions one after the other.")
    var from: Int?

    @Option(help: "End of the slice (exclusive); alone, the slice starts at the first sample.")
    var to: Int?

    @Option(help: "At most this many session panels.")
    var panels = 6

    @Option(help: "Page width in pixels.")
    var width = 900.0

    @Option(name: [.short, .customLong("output")], help: "The SVG file to write.")
    var output: String

    func run() throws {
        guard panels >= 1 else { throw Failure.usage("--panels must be at least 1, not \(panels)") }
        let dataset = try selection.dataset(in: folder)
        let chosen = try analysing { try features.split(separator: ",").map { try Feature(named: String($0)) } }
        let slice: Range<Int>?
        switch (from, to) {
        case (nil, nil): slice = nil
        case (let from, let to) where (from ?? 0) < (to ?? Int.max): slice = (from ?? 0)..<(to ?? dataset.rowCount)
        default: throw Failure.usage("--from must be below --to")
        }
        let charts = try analysing {
            try GesturePlot(features: chosen, slice: slice, maximumPanels: panels).charts(for: dataset)
        }
        try write(ChartPage(charts: charts, width: width).svg.text, to: output)
        Terminal.say("wrote \(output): \(charts.count) panels of \(chosen.map(\.name).joined(separator: ", "))")
        if slice == nil, dataset.sessions.count > panels {
            Terminal.say("drew \(panels) of \(dataset.sessions.count.counting("session")); --panels to draw more")
        }
    }
}
