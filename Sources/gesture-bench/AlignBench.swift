import ArgumentParser
import Foundation
import GestureCore
import GestureScenarios
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

struct AlignBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "align",
        abstract: "How far aligned labels' boundaries, and the prompt's, are from when simulated people moved.")

    @Option(
        parsing: .upToNextOption, help: "Gestures; any name other than shake, chop and drive gets a motion of its own.")
    var gestures: [String] = ["shake", "chop", "drive", "wave"]
    @Option(parsing: .upToNextOption, help: "Rates to record at, in Hz.") var rates: [Double] = [25, 100]
    @Option(help: "Simulated people per gesture and rate.") var users = 10
    @Option(help: "Takes per person.") var takes = 5
    @Option(help: "The simulated people's seed.") var seed: UInt64 = 1

    func run() async throws {
        print("gesture  rate Hz  boundaries  aligned median s  p95 s  prompt median s  p95 s  missed takes")
        var all = AlignmentExperiment.Errors()
        for gesture in gestures {
            for rate in rates {
                let errors = try await measure(try ActivityLabel(gesture), rate: rate)
                all.aligned += errors.aligned
                all.prompted += errors.prompted
                all.missed += errors.missed
                print(row(gesture, String(format: "%g", rate), errors))
            }
        }
        print(row("all", "", all))
        print("targets: aligned median ≤ 0.1 s, p95 ≤ 0.25 s")
    }

    private func measure(_ gesture: ActivityLabel, rate: Double) async throws -> AlignmentExperiment.Errors {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gesture-bench-align-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let experiment = AlignmentExperiment(gesture: gesture, rate: rate, users: users, takes: takes, seed: seed)
        return try await experiment.run(in: RecordingsFolder(FilePath(folder.path)))
    }

    private func row(_ gesture: String, _ rate: String, _ errors: AlignmentExperiment.Errors) -> String {
        gesture.padding(toLength: 7, withPad: " ", startingAt: 0) + "  "
            + String(repeating: " ", count: max(0, 7 - rate.count)) + rate
            + String(
                format: "  %10d  %16.3f  %5.3f  %15.3f  %5.3f  %12d", errors.prompted.count,
                median(errors.aligned), percentile(errors.aligned, 0.95), median(errors.prompted),
                percentile(errors.prompted, 0.95), errors.missed)
    }
}
