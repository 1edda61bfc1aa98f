import ArgumentParser
import Foundation
import GestureArchive
import GestureCommandLine
import GestureCore
import GestureRecording
import GestureStore

import struct SystemPackage.FilePath

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The whole loop on the simulated sensor: record, train, evaluate, play.",
        discussion: """
            Everything goes into <recordings>/demo, apart from your own recordings, and replaces what an \
            earlier demo left there: a short session for the user 'demo' in real time (demo/first), then six \
            simulated people recording shake, chop and drive (demo/crowd), a split by person, a model \
            (demo/models), its score on a person it never saw, and a game with it.
            """)

    @OptionGroup var folder: FolderOptions

    @Flag(help: "Print the prompts instead of speaking them.")
    var quiet = false

    private static let rate = "25"
    private static let crowd = ["ada", "ben", "cy", "dee", "eli", "fay"]

    func run() async throws {
        let demo = folder.path + "/demo"
        try? FileManager.default.removeItem(atPath: demo)
        try FileManager.default.createDirectory(atPath: demo + "/models", withIntermediateDirectories: true)
        Terminal.say("The demo records into \(demo), apart from your recordings in \(folder.path).\n")
        try await recordTheDemoUser(into: RecordingsFolder(FilePath(demo + "/first")))
        let model = demo + "/models/gesture.model"
        let crowd = demo + "/crowd"
        try await recordTheCrowd(into: crowd)
        try await step(
            "Splitting by person, so that the test measures what a new person will see.",
            SplitCommand.self,
            [
                "--recordings", crowd, "--by", "user", "--validation", "0.17", "--test", "0.17",
                "--output", demo + "/split.manifest",
            ])
        try await step(
            "Training the CNN+LSTM classifier.", Train.self,
            ["--recordings", crowd, "--manifest", demo + "/split.manifest", "--output", model])
        try await step(
            "Evaluating on the test person.", Evaluate.self,
            [model, "--recordings", crowd, "--test", demo + "/split.manifest"])
        try await step(
            "Playing a game: the simulated player makes each gesture called out, now and then a wrong one.",
            Play.self,
            ["--model", model, "--device", "sim", "--fast", "--rounds", "5", "--mistakes", "0.1", "--seed", "4"]
                + (quiet ? ["--quiet"] : []))
        Terminal.say(
            "\nNext: `gesture devices` finds your sensor; `gesture record --device ID --user YOU --gesture shake` "
                + "records into \(folder.path); `gesture --help` shows every command.")
    }

    private func recordTheDemoUser(into first: RecordingsFolder) async throws {
        let plan = try SessionPlan(
            user: try userID("demo"), gesture: .shake, takes: 2, take: 2.5, rest: 1.5, getReady: 1)
        var sensor = try SensorOptions.parse(["--device", "sim"])
        sensor.rate = Double(Self.rate)
        Terminal.say(
            "Recording 2 takes of 'shake' for the user 'demo' on the simulated sensor (\(Int(plan.duration)) s).")
        try await RecordingRun(
            plan: plan, sensor: sensor, folder: first, voice: quiet ? .printed : .espeak,
            fast: false, append: true, decision: .keep
        ).run()
        try show(first, user: plan.user)
    }

    private func recordTheCrowd(into demo: String) async throws {
        Terminal.say(
            "\n== Six simulated people record 3 takes each of shake, chop and drive into \(demo) (simulated time).")
        for (index, user) in Self.crowd.enumerated() {
            for gesture in ["shake", "chop", "drive"] {
                let record = try Record.parse([
                    "--user", user, "--gesture", gesture, "--takes", "3", "--device", "sim", "--rate", Self.rate,
                    "--recordings", demo, "--seed", "\(index + 1)", "--fast", "--append", "--keep", "--quiet",
                ])
                try await silently { try await record.run() }
            }
        }
        Terminal.say("\(Self.crowd.count * 9) sessions recorded; `gesture stats --recordings \(demo)` counts them.")
    }

    /// Runs another command as a person would type it, saying what it is for.
    private func step<Command: ParsableCommand>(
        _ title: String, _ command: Command.Type, _ arguments: [String]
    ) async throws {
        let name = Command.configuration.commandName ?? Command._commandName
        Terminal.say("\n== \(title)\n$ gesture \(name) \(arguments.joined(separator: " "))")
        var parsed: any ParsableCommand = try Command.parse(arguments)
        if var asynchronous = parsed as? any AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            try parsed.run()
        }
    }

    private func show(_ first: RecordingsFolder, user: UserID) throws {
        let file = first.recordingFile(for: user)
        let lines = try String(contentsOfFile: file.string, encoding: .utf8).split(separator: "\n")
        let sessions = try Archive(folder: first).catalog.sessions()
        Terminal.say(
            """

            The CSV \(file) holds \(lines.count - 1) rows: a header, then one row per sample.
              \(lines[0])
              \(lines.dropFirst().prefix(2).joined(separator: "\n  "))
            The catalog \(first.catalogPath) holds \(sessions.count) sessions; \
            `gesture sessions --recordings \(first.root)` lists them, `gesture check` verifies them.
            """)
    }
}

/// Runs a command with its standard output thrown away.
private func silently(_ body: () async throws -> Void) async throws {
    fflush(nil)
    let saved = dup(STDOUT_FILENO)
    let null = open("/dev/null", O_WRONLY)
    dup2(null, STDOUT_FILENO)
    close(null)
    defer {
        dup2(saved, STDOUT_FILENO)
        close(saved)
    }
    try await body()
}
