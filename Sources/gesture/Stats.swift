import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Sessions per gesture and user, data per gesture, the range of every feature, each session's rate and gaps."
    )

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions
    @Flag(help: "The figures as one JSON object.") var json = false

    func run() throws {
        let stats = DatasetStats(try selection.dataset(in: folder))
        if json {
            Terminal.say(try jsonLine(stats))
            return
        }
        Terminal.say("Sessions per gesture and user\n" + Summary.counts(stats) + "\n")
        let still = stats.sessions.filter(\.noMotion)
        if !still.isEmpty {
            Terminal.say(
                "\(still.count.counting("session")) with no motion inside the prompt (`gesture clean` lists them): "
                    + still.map(\.session).joined(separator: ", ") + "\n")
        }
        let held = stats.sessions.filter { $0.timing.heldShare > SessionTiming.heldWarning }
        if !held.isEmpty {
            Terminal.say(
                "\(held.count.counting("session")) with more than \(Int(SessionTiming.heldWarning * 100)) % of rows held "
                    + "(repeating the reading before: the device delivered fewer readings than the rate; record at "
                    + "its rate, 60 Hz for a phone): " + held.map(\.session).joined(separator: ", ") + "\n")
        }
        Terminal.say(
            Summary.table(
                header: ["gesture", "sessions", "samples", "seconds"],
                rows: stats.gestureTotals.map {
                    [$0.gesture, "\($0.sessions)", "\($0.samples)", String(format: "%.1f", $0.seconds)]
                }) + "\n")
        Terminal.say(
            Summary.table(
                header: ["feature", "unit", "min", "max", "mean", "std", "NaN", "inf"],
                rows: stats.features.map {
                    [$0.feature, $0.unit] + [$0.min, $0.max, $0.mean, $0.std].map { String(format: "%.4g", $0) } + [
                        "\($0.nanCount)", "\($0.infiniteCount)",
                    ]
                }) + "\n")
        Terminal.say(
            Summary.table(
                header: [
                    "session", "user", "gesture", "samples", "seconds", "nominal Hz", "achieved Hz", "held %", "gaps",
                    "longest gap s",
                ],
                rows: stats.sessions.map {
                    [
                        $0.session, $0.user, $0.gesture, "\($0.samples)", String(format: "%.2f", $0.seconds),
                        String(format: "%.2f", $0.timing.nominalRate), String(format: "%.2f", $0.timing.achievedRate),
                        String(format: "%.0f", $0.timing.heldShare * 100), "\($0.timing.gaps.count)",
                        $0.timing.gaps.map(\.seconds).max().map { String(format: "%.3f", $0) } ?? "-",
                    ]
                }))
    }
}

extension Summary {
    /// Machine Learning by Tutorials' count table: a row per gesture, a column per user, totals on both sides.
    static func counts(_ stats: DatasetStats) -> String {
        let rows = stats.gestures.map { gesture in
            [gesture] + stats.users.map { "\(stats.count(gesture: gesture, user: $0))" }
                + ["\(stats.users.reduce(0) { $0 + stats.count(gesture: gesture, user: $1) })"]
        }
        let totals =
            ["total"]
            + stats.users.map { user in "\(stats.gestures.reduce(0) { $0 + stats.count(gesture: $1, user: user) })" }
            + ["\(stats.sessions.count)"]
        return table(header: ["gesture"] + stats.users + ["total"], rows: rows + [totals])
    }
}
