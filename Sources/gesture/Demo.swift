import ArgumentParser
import Foundation
import GestureCore
import GestureRecording
import GestureSensors
import struct SystemPackage.FilePath

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a short session for the user 'demo' on the simulated sensor and show what was written.")

    @OptionGroup var folder: FolderOptions

    @Flag(help: "Print the prompts instead of speaking them.")
    var quiet = false

    func run() async throws {
        let plan = try SessionPlan(user: try userID("demo"), gesture: .shake, takes: 2, take: 2.5, rest: 1.5, getReady: 1)
        var sensor = try SensorOptions.parse([])
        sensor.rate = 50
        Terminal.say("Recording 2 takes of 'shake' for the user 'demo' on the simulated sensor (\(Int(plan.duration)) s).")
        try await RecordingRun(plan: plan, sensor: sensor, folder: folder.folder, voice: quiet ? .printed : .espeak,
                               fast: false, append: true, decision: .keep).run()
        try show(folder.folder.recordingFile(for: plan.user), catalog: folder.archive().catalog)
    }

    private func show(_ file: FilePath, catalog: Catalog) throws {
        let lines = try String(contentsOfFile: file.string, encoding: .utf8).split(separator: "\n")
        let sessions = try catalog.sessions()
        Terminal.say("""

            The CSV \(file) holds \(lines.count - 1) rows: a header, then one row per sample.
              \(lines[0])
              \(lines.dropFirst().prefix(2).joined(separator: "\n  "))
            The catalog \(folder.folder.catalogPath) holds \(sessions.count) sessions; \
            `gesture sessions` lists them, `gesture check` verifies them.
            """)
    }
}
