import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureRecording
import GestureStore

import struct SystemPackage.FilePath

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The whole loop on the simulated sensor: record, train, evaluate, play.",
        discussion: """
            Records a short session for the user 'demo' into the recordings folder and shows what was written; \
            then has six simulated people record shake, chop and drive into <recordings>/demo, splits them by \
            person, trains a model (<recordings>/demo/models), evaluates it on a person it never saw, and plays \
            a game with it.
            """)

    @OptionGroup var folder: FolderOptions

    @Flag(help: "Print the prompts instead of speaking them.")
    var quiet = false

    private static let rate = "25"
    private static let crowd = ["ada", "ben", "cy", "dee", "eli", "fay"]

    func run() async throws {
        try await recordTheDemoUser()
        let demo = folder.path + "/demo"
        let model = demo + "/models/gesture.model"
        try await recordTheCrowd(into: demo)
        try await step(
            "Splitting by person, so that the test measures what a new person will see.",
            SplitCommand.self,
            [
                "--recordings", demo, "--by", "user", "--validation", "0.17", "--test", "0.17",
                "--output", demo + "/split.manifest",
            ])
        try await step(
            "Training the CNN+LSTM classifier.", Train.self,
            ["--recordings", demo, "--manifest", demo + "/split.manifest", "--epochs", "30", "--output", model])
        try await step(
            "Evaluating on the test person.", Evaluate.self,
            [model, "--recordings", demo, "--test", demo + "/split.manifest"])
        try await step(
            "Playing a game: the simulated player makes each gesture called out, now and then a wrong one.",
            Play.self,
            ["--model", model, "--fast", "--rounds", "5", "--mistakes", "0.1", "--seed", "4"]
                + (quiet ? ["--quiet"] : []))
        Terminal.say("\nNext: `gesture record --user YOU --gesture shake`, and `gesture --help` for every command.")
    }

    private func recordTheDemoUser() async throws {
        let plan = try SessionPlan(
            user: try userID("demo"), gesture: .shake, takes: 2, take: 2.5, rest: 1.5, getReady: 1)
        var sensor = try SensorOptions.parse([])
        sensor.rate = Double(Self.rate)
        Terminal.say(
            "Recording 2 takes of 'shake' for the user 'demo' on the simulated sensor (\(Int(plan.duration)) s).")
        try await RecordingRun(
            plan: plan, sensor: sensor, folder: folder.folder, voice: quiet ? .printed : .espeak,
            fast: false, append: true, decision: .keep
        ).run()
        try show(folder.folder.recordingFile(for: plan.user), catalog: folder.archive().catalog)
    }

    private func recordTheCrowd(into demo: String) async throws {
        try? FileManager.default.removeItem(atPath: demo)
        try FileManager.default.createDirectory(atPath: demo + "/models", withIntermediateDirectories: true)
        Terminal.say(
            "\n== Six simulated people record 3 takes each of shake, chop and drive into \(demo) (simulated time).")
        for (index, user) in Self.crowd.enumerated() {
            for gesture in ["shake", "chop", "drive"] {
                let record = try Record.parse([
                    "--user", user, "--gesture", gesture, "--takes", "3", "--rate", Self.rate,
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

    private func show(_ file: FilePath, catalog: Catalog) throws {
        let lines = try String(contentsOfFile: file.string, encoding: .utf8).split(separator: "\n")
        let sessions = try catalog.sessions()
        Terminal.say(
            """

            The CSV \(file) holds \(lines.count - 1) rows: a header, then one row per sample.
              \(lines[0])
              \(lines.dropFirst().prefix(2).joined(separator: "\n  "))
            The catalog \(folder.folder.catalogPath) holds \(sessions.count) sessions; \
            `gesture sessions` lists them, `gesture check` verifies them.
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
