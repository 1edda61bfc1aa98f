import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore

struct Plot: ParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract:
            "Plot features over time in seconds to an SVG: a panel per unit for each session, or for a slice of samples.",
        discussion:
            "Machine Learning by Tutorials' plot_gesture_activity(test[11950:12050], activity=\"drive_it\", features=[\"gravX\",\"gravY\",\"gravZ\"]) is\n  gesture plot --gesture drive --from 11950 --to 12050 --features gravX,gravY,gravZ -o drive.svg"
    )

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions

    @Option(help: "Features to draw, comma-separated; one panel per unit (g, rad/s, rad).")
    var features = "gravX,gravY,gravZ"

    @Option(help: "First sample of a slice of the selection's samples, sessions one after the other (default: 0).")
    var from: Int?

    @Option(help: "End of the slice, exclusive (default: the end of the selection).")
    var to: Int?

    @Option(help: "At most this many sessions, each a panel per unit.")
    var panels = 6

    @Option(help: "Page width in pixels.")
    var width = 900.0

    @Option(name: [.short, .customLong("output")], help: "The SVG file to write.")
    var output: String

    func checkNumbers() throws {
        try Failure.check("--panels", panels, in: 1...1000)
        try Failure.check("--width", width, in: 300...20_000, being: "a number of pixels")
    }

    func run() throws {
        try checkNumbers()
        let dataset = try selection.dataset(in: folder)
        let chosen = try analysing { try features.split(separator: ",").map { try Feature(named: String($0)) } }
        let slice = try self.slice(of: dataset)
        let drawn = try analysing {
            try GesturePlot(
                features: chosen, slice: slice, maximumSessions: panels,
                gestureColors: try Palette.gestureColors(in: folder.folder)
            ).panels(for: dataset)
        }
        let note =
            drawn.sessionsLeftOut > 0
            ? "\(drawn.sessionsDrawn) of \(drawn.sessionsDrawn + drawn.sessionsLeftOut) sessions drawn; --panels to draw more"
            : nil
        try write(ChartPage(charts: drawn.charts, width: width, note: note).svg.text, to: output)
        Terminal.say(
            "wrote \(output): \(drawn.charts.count.counting("panel")) of \(chosen.map(\.name).joined(separator: ", "))"
                + (note.map { "; \($0)" } ?? ""))
    }

    /// The samples --from and --to choose: from the start, to the end, or between; nil for whole sessions.
    private func slice(of dataset: Dataset) throws -> Range<Int>? {
        guard from != nil || to != nil else { return nil }
        let start = from ?? 0, end = to ?? dataset.rowCount
        guard start < end else { throw Failure.usage("--from \(start) must be below --to \(end)") }
        return start..<end
    }
}
