import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureRecording
import GestureSensors

struct Clean: ParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract:
            "Find the bad sessions, one line each with the reasons; --apply discards them (gesture restore undoes it).")

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions

    @Option(help: "Seconds of gesture a session must hold: one training window.")
    var window = 1.0

    @Flag(help: "Discard the bad sessions through the catalog.")
    var apply = false

    @Flag(help: "One JSON object per bad session, per line.") var json = false

    func checkNumbers() throws {
        try Failure.check("--window", window, in: 0...SessionPlan.maximumSeconds, being: "a number of seconds")
    }

    func run() throws {
        try checkNumbers()
        var rules = CleaningRules(ranges: DeviceDirectory.knownRanges)
        rules.window = window
        let dataset = try selection.dataset(in: folder)
        let bad = Cleaner(rules: rules).badSessions(in: dataset)
        if json {
            for session in bad { Terminal.say(try jsonLine(session)) }
        } else {
            for session in bad {
                Terminal.say("\(session.session)  \(session.user)  \(session.gesture)  \(session.reasons)")
            }
            Terminal.say(
                "\(bad.count) of \(dataset.sessions.count.counting("session")) \(bad.count == 1 ? "looks" : "look") bad"
            )
        }
        guard apply, !bad.isEmpty else { return }
        let outside = try analysing { try Cleaner(rules: rules).discard(bad, archive: folder.archive()) }
        for session in outside {
            Terminal.warn(
                "\(session.session) is not in the catalog (\(session.user)'s file in Machine Learning by Tutorials' format?); not discarded"
            )
        }
        Terminal.say("discarded \(bad.count - outside.count) sessions; `gesture restore ID…` brings one back")
    }
}
