import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning
import GestureLive
import GestureScenarios
import GestureSimulation
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

/// How often the live detector fires on motion its model was not taught, measured the honest way:
/// the motion left out of training, and a person left out too.
struct OpenSetBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-set",
        abstract: "False detections per hour of motion the model was not taught, each gesture left out in turn.",
        discussion: """
            Records the simulated crowd (six people, shake, chop and drive, 5 takes each at 25 Hz). For each \
            gesture in turn, trains as `gesture train` trains by default on the other gestures of five people, \
            leaving the sixth out too (ada with the first gesture, ben with the second, …; --every-person \
            leaves out each person with each gesture). The person left out's takes are then fed through the \
            live detector as `gesture detect --device replay:… --fast --evaluate` feeds them: the known \
            gestures' takes, the left-out gesture's takes, and --everyday-minutes of their simulated everyday \
            motion (`--sim-everyday all`). It prints the false detections per hour of unknown motion (the \
            left-out gesture, everyday motion, and the rest between takes), the share of known gestures \
            found, and the delay, at each of --thresholds: today's baseline (0.9) beside the simplest \
            rejection, a higher bar for the top class's probability.
            """)

    @Option(help: "Minutes of simulated everyday motion replayed per fold.")
    var everydayMinutes = 20.0

    @Option(parsing: .upToNextOption, help: "Seeds to train with; each trains every fold.")
    var seeds: [UInt64] = [1]

    @Flag(help: "Leave out every person with each gesture, not one person per gesture.")
    var everyPerson = false

    @Option(
        parsing: .upToNextOption,
        help: """
            Detection thresholds to score side by side: the top class's probability a detection needs, the \
            simplest rejection score; `gesture detect`'s default 0.9 is today's baseline.
            """)
    var thresholds = [DetectionSettings().threshold, 0.99, 0.999]

    @Option(help: "Epochs of training (`gesture train`'s default: 30).")
    var epochs = TrainingOptions().epochs

    func run() async throws {
        print("CPU: \(cpuModel())")
        let folder = FilePath(
            FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-open-set-\(getpid())").path)
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        let crowd = try AccuracyBench.simulatedCrowd.map { name throws in try UserID(name) }
        let gestures: [ActivityLabel] = [.shake, .chop, .drive]
        _ = try await FaultyRecordings(users: crowd, gestures: gestures, takes: 5, faultRate: 0, rate: 25)
            .record(into: RecordingsFolder(folder))
        let loaded = try DatasetLoader(folder: RecordingsFolder(folder)).load()
        var totals = Array(repeating: OpenSetScore(), count: thresholds.count)
        for fold in folds(gestures: gestures, crowd: crowd) {
            for seed in seeds {
                let scores = try measure(fold, seed: seed, in: loaded)
                for (index, score) in scores.enumerated() {
                    print(
                        "  \(fold.gesture) and \(fold.person) left out, seed \(seed), \(Self.name(thresholds[index])): \(score.summary)"
                    )
                    totals[index] = totals[index] + score
                }
            }
        }
        print("the simulated crowd, each gesture left out in turn, \(seeds.count.counting("seed")):")
        for (threshold, total) in zip(thresholds, totals) { print("  \(Self.name(threshold)): \(total.summary)") }
    }

    /// A threshold as the figures name it: today's default is the baseline, without rejection.
    private static func name(_ threshold: Double) -> String {
        threshold == DetectionSettings().threshold
            ? "threshold \(threshold) (today's default, no rejection)" : "max-probability rejection at \(threshold)"
    }

    private func folds(gestures: [ActivityLabel], crowd: [UserID]) -> [LeftOut] {
        gestures.indices.flatMap { index in
            let people = everyPerson ? crowd : [crowd[index % crowd.count]]
            return people.map { LeftOut(gesture: gestures[index], person: $0) }
        }
    }

    /// Trains without the fold's gesture and person, then replays the person's motion through the
    /// detector at each threshold.
    private func measure(_ fold: LeftOut, seed: UInt64, in data: Dataset) throws -> [OpenSetScore] {
        let known = Set(data.sessions.map(\.gesture)).subtracting([fold.gesture]).sorted()
        let others = data.users.filter { $0 != fold.person }
        let experiment = try Experiment(
            name: "open-set", features: TrainingData.defaultFeatures, window: 20, layers: LayerSizes(),
            training: SessionSelection(gestures: known, users: others).apply(to: data),
            augmentation: AugmentationPlan([]), options: TrainingOptions(epochs: epochs), validation: nil, test: nil)
        let model = try experiment.train(seed: seed).model
        let person = try SessionSelection(users: [fold.person]).apply(to: data).sessions
        return try thresholds.map { threshold in
            let settings = DetectionSettings(threshold: threshold)
            return OpenSetScore(
                known: try EventScore(
                    model: model, sessions: person.filter { $0.gesture != fold.gesture }, settings: settings),
                leftOut: try EventScore(
                    model: model, sessions: person.filter { $0.gesture == fold.gesture }, settings: settings),
                everyday: try EventScore(
                    model: model, everydayOf: fold.person, seed: seed, minutes: everydayMinutes, settings: settings))
        }
    }
}

/// The gesture and the person one fold leaves out.
private struct LeftOut {
    var gesture: ActivityLabel
    var person: UserID
}

/// The live detector's figures on one person left out: their takes of the known gestures, their
/// takes of the gesture left out, and their everyday motion.
private struct OpenSetScore {
    var known = EventScore.none
    var leftOut = EventScore.none
    var everyday = EventScore.none

    /// Every false detection, over all the time no known gesture covers.
    var unknown: EventScore { known + leftOut + everyday }

    static func + (a: OpenSetScore, b: OpenSetScore) -> OpenSetScore {
        OpenSetScore(known: a.known + b.known, leftOut: a.leftOut + b.leftOut, everyday: a.everyday + b.everyday)
    }

    var summary: String {
        let share = known.events > 0 ? Double(known.found) / Double(known.events) * 100 : .nan
        let delay =
            known.delays.isEmpty
            ? "no delay"
            : String(format: "delay median %.2f s, p90 %.2f s", median(known.delays), percentile(known.delays, 0.9))
        return String(
            format:
                "%.1f false detections per hour of unknown motion (%d in %.2f h: %d on the left-out gesture's takes, "
                + "%d on %.2f h of everyday motion, %d on the known gestures' takes); %d of %d known gestures found "
                + "(%.1f %%), %@",
            unknown.falseDetectionsPerHour, unknown.falseDetections, unknown.unknownHours, leftOut.falseDetections,
            everyday.falseDetections, everyday.unknownHours, known.falseDetections, known.found, known.events, share,
            delay)
    }
}
