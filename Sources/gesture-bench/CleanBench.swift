import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureScenarios
import GestureSensors
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

struct CleanBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Precision and recall of `gesture clean` on simulated recordings with injected faults.")

    @Option(help: "Simulated users.") var users = 6
    @Option(help: "Takes per user and gesture.") var takes = 5
    @Option(help: "Chance that a take gets a fault.") var faultRate = 0.2
    @Option(parsing: .upToNextOption, help: "Seeds to run; the figures are their medians.") var seeds: [UInt64] = [
        1, 2, 3,
    ]

    func run() async throws {
        print(
            "seed  sessions  faulty  flagged  precision  recall  found by fault (named: with the finding the fault should cause)"
        )
        var scores: [CleaningScore] = []
        for seed in seeds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "gesture-bench-clean-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let scenario = FaultyRecordings(
                users: try (1...users).map { try UserID("u\($0)") }, takes: takes,
                faultRate: faultRate, seed: seed)
            let recordings = RecordingsFolder(FilePath(folder.path))
            let truth = try await scenario.record(into: recordings)
            let dataset = try DatasetLoader(folder: recordings).load()
            let found = Cleaner(rules: CleaningRules(ranges: DeviceDirectory.knownRanges)).badSessions(in: dataset)
            let score = CleaningScore(found: found, truth: truth)
            scores.append(score)
            let byFault = score.foundByFault.sorted { $0.key.rawValue < $1.key.rawValue }
                .map { "\($0.key.rawValue) \($0.value.found)/\($0.value.of) (named \($0.value.named))" }.joined(
                    separator: ", ")
            print(
                String(
                    format: "%4d  %8d  %6d  %7d  %9.3f  %6.3f  ", seed, dataset.sessions.count, truth.count,
                    found.count, score.precision, score.recall) + byFault)
            for bad in found where truth[bad.session] == nil {
                print("  false positive: \(bad.session) \(bad.gesture): \(bad.reasons)")
            }
        }
        print(
            String(
                format: "median precision %.3f, recall %.3f (target ≥ 0.9 each)",
                median(scores.map(\.precision)), median(scores.map(\.recall))))
    }
}
