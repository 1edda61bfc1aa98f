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
/// the motion left out of training, and a person left out too; each way of rejecting it side by side.
struct OpenSetBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-set",
        abstract: "False detections per hour of motion the model was not taught, each gesture left out in turn.",
        discussion: """
            Records the simulated crowd (six people, shake, chop and drive, 5 takes each at 25 Hz, and \
            --background-minutes of each person's everyday motion labeled other, with another seed than the \
            replayed one). For each gesture in turn, trains as `gesture train` trains by default on the other \
            gestures of five people, leaving the sixth out too (ada with the first gesture, ben with the \
            second, …; --every-person leaves out each person with each gesture): once without and once with \
            their everyday motion as a background class. The person left out's takes are then fed through the \
            live detector as `gesture detect --device replay:… --fast --evaluate` feeds them: the known \
            gestures' takes, the left-out gesture's takes, and --everyday-minutes of their simulated everyday \
            motion (`--sim-everyday all`). For each way of rejecting (today's baseline, a higher bar for the \
            top class's probability, the distance to the top class's prototypes in an embedding at each of \
            --false-reject-rates, a background class, and their combinations) it prints the false detections \
            per hour of unknown motion (the left-out gesture, everyday motion, and the rest between takes), the \
            share of known gestures found, and the delay.
            """)

    @Option(help: "Minutes of simulated everyday motion replayed per fold.")
    var everydayMinutes = 20.0

    @Option(help: "Minutes of each person's everyday motion recorded as background (`--as other`).")
    var backgroundMinutes = 5.0

    @Option(parsing: .upToNextOption, help: "Seeds to train with; each trains every fold.")
    var seeds: [UInt64] = [1]

    @Flag(help: "Leave out every person with each gesture, not one person per gesture.")
    var everyPerson = false

    @Option(
        parsing: .upToNextOption,
        help: "Shares of a gesture's training windows the distance rejection may reject, to calibrate its limit.")
    var falseRejectRates = [0.005, 0.01, 0.02]

    @Option(
        parsing: .upToNextOption,
        help: "Shares of a gesture's takes the motion statistics' limit may leave, each with the LSTM distance at 1 %.")
    var motionRejectRates = [0.1, 0.2, 0.3]

    @Flag(help: "The motion statistics' limit set for each gesture, not one for all.")
    var motionLimitPerGesture = false

    @Option(help: "Epochs of training (by default `gesture train`'s for the data).")
    var epochs: Int?

    @Flag(help: "Train as `gesture train` trained before its recipe: no copies, the book's features, 30 epochs.")
    var firstDefaults = false

    @Flag(help: "Random convolutions trained beside each network, as `gesture train --classifier both` trains them.")
    var randomConvolutions = false

    func run() async throws {
        print("CPU: \(cpuModel())")
        let folder = FilePath(
            FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-open-set-\(getpid())").path)
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        let crowd = try AccuracyBench.simulatedCrowd.map { name throws in try UserID(name) }
        let gestures: [ActivityLabel] = [.shake, .chop, .drive]
        _ = try await FaultyRecordings(users: crowd, gestures: gestures, takes: 5, faultRate: 0, rate: 25)
            .record(into: RecordingsFolder(folder))
        try await EverydayRecordings(users: crowd, minutes: backgroundMinutes, seed: 1_000, rate: 25)
            .record(into: RecordingsFolder(folder))
        let loaded = try DatasetLoader(folder: RecordingsFolder(folder)).load()
        if !firstDefaults { print(TrainingRecipe(for: loaded, epochs: epochs).choicesText) }
        let methods = RejectionMethod.compared(
            falseRejectRates: falseRejectRates,
            motion: motionRejectRates.map { MotionCalibration(falseRejectRate: $0, pooled: !motionLimitPerGesture) })
        var totals = Array(repeating: OpenSetScore(), count: methods.count)
        for fold in folds(gestures: gestures, crowd: crowd) {
            for seed in seeds {
                let scores = try measure(fold, seed: seed, methods: methods, in: loaded)
                for (index, score) in scores.enumerated() {
                    print(
                        "  \(fold.gesture) and \(fold.person) left out, seed \(seed), \(methods[index]): \(score.summary)"
                    )
                    totals[index] = totals[index] + score
                }
            }
        }
        print("the simulated crowd, each gesture left out in turn, \(seeds.count.counting("seed")):")
        for (method, total) in zip(methods, totals) { print("  \(method): \(total.summary)") }
    }

    private func folds(gestures: [ActivityLabel], crowd: [UserID]) -> [LeftOut] {
        gestures.indices.flatMap { index in
            let people = everyPerson ? crowd : [crowd[index % crowd.count]]
            return people.map { LeftOut(gesture: gestures[index], person: $0) }
        }
    }

    /// Trains without the fold's gesture and person (with and without background motion), then
    /// replays the person's motion through the detector with each method.
    private func measure(
        _ fold: LeftOut, seed: UInt64, methods: [RejectionMethod], in data: Dataset
    ) throws -> [OpenSetScore] {
        let known = Set(data.sessions.map(\.gesture)).subtracting([fold.gesture, .other]).sorted()
        let others = data.users.filter { $0 != fold.person }
        let plain = try train(known, of: others, seed: seed, in: data)
        let background = try train(known + [.other], of: others, seed: seed, in: data)
        let person = try SessionSelection(users: [fold.person]).apply(to: data).sessions.filter { $0.gesture != .other }
        return try methods.map { method in
            let trained = method.background ? background : plain
            let model = method.rejection.map {
                trained.model.calibratingRejection(
                    on: trained.sequences, embedding: $0.embedding, falseRejectRate: $0.falseRejectRate,
                    motion: method.motion)
            }
            let settings = DetectionSettings(threshold: method.threshold, reject: model != nil)
            let detector = model ?? trained.model
            return OpenSetScore(
                known: try EventScore(
                    model: detector, sessions: person.filter { $0.gesture != fold.gesture }, settings: settings),
                leftOut: try EventScore(
                    model: detector, sessions: person.filter { $0.gesture == fold.gesture }, settings: settings),
                everyday: try EventScore(
                    model: detector, everydayOf: fold.person, seed: seed, minutes: everydayMinutes,
                    settings: settings))
        }
    }

    /// A model trained as `gesture train` trains on `gestures` of `users`, and the sequences it learned from.
    private func train(
        _ gestures: [ActivityLabel], of users: [UserID], seed: UInt64, in data: Dataset
    ) throws -> (model: GestureModel, sequences: [LabeledSequence]) {
        let training = try SessionSelection(gestures: gestures, users: users).apply(to: data)
        let recipe =
            firstDefaults
            ? TrainingRecipe.firstDefaults(for: training, epochs: epochs, randomConvolutions: randomConvolutions)
            : TrainingRecipe(for: training, epochs: epochs, randomConvolutions: randomConvolutions ? true : nil)
        let experiment = try Experiment(
            name: "open-set", features: recipe.features, window: recipe.window, layers: LayerSizes(),
            training: training, augmentation: AugmentationPlan(recipe.augmentations, seed: seed),
            options: TrainingOptions(
                epochs: recipe.epochs, batchSize: recipe.batchSize, seed: seed,
                randomConvolutions: recipe.randomConvolutions, labelSmoothing: recipe.labelSmoothing,
                averagedEpochs: recipe.averagedEpochs),
            validation: nil, test: nil)
        return (try experiment.train(seed: seed).model, try experiment.trainingSequences(seed: seed))
    }
}

/// One way of keeping unknown motion from being detected, as the bench names it.
private struct RejectionMethod: CustomStringConvertible {
    /// Trained with everyday motion as a background class, never reported.
    var background = false
    var threshold = DetectionSettings().threshold
    /// The distance rejection's embedding and calibration; nil for none.
    var rejection: (embedding: Embedding, falseRejectRate: Double)?
    /// With `rejection`, the motion statistics' test too.
    var motion: MotionCalibration?

    /// No rejection, each method alone, the motion statistics beside the LSTM's distance at 1 %,
    /// each with and without a background class.
    static func compared(falseRejectRates: [Double], motion: [MotionCalibration]) -> [RejectionMethod] {
        let bars = [false, true].flatMap { background in
            [RejectionMethod(background: background), RejectionMethod(background: background, threshold: 0.99)]
        }
        let distances = falseRejectRates.flatMap { rate in
            Embedding.allCases.flatMap { embedding in
                [false, true].map { RejectionMethod(background: $0, rejection: (embedding, rate)) }
            }
        }
        let motions = motion.flatMap { calibration in
            [false, true].map {
                RejectionMethod(
                    background: $0, rejection: (.lstm, Rejection.defaultFalseRejectRate), motion: calibration)
            }
        }
        return bars + distances + motions
    }

    var description: String {
        var parts: [String] = []
        if background { parts.append("background class") }
        if let rejection {
            parts.append("\(rejection.embedding) distance at \(rejection.falseRejectRate) false rejects")
        }
        if let motion {
            parts.append(
                "motion statistics at \(motion.falseRejectRate) of takes\(motion.pooled ? "" : ", a limit per gesture")"
            )
        }
        if threshold != DetectionSettings().threshold || parts.isEmpty {
            parts.append("threshold \(threshold)")
        }
        let name = parts.joined(separator: " + ")
        if isTrainDefault { return "\(name) (`gesture train`'s default\(background ? " with other recorded" : ""))" }
        return background || rejection != nil || threshold != DetectionSettings().threshold
            ? name : "\(name) (no rejection, `--reject off`)"
    }

    /// Whether `gesture train` makes this rejection, with or without everyday motion recorded as other.
    private var isTrainDefault: Bool {
        rejection.map { $0 == (.lstm, Rejection.defaultFalseRejectRate) } == true
            && threshold == DetectionSettings().threshold
            && motion == (background ? MotionCalibration(falseRejectRate: 0) : nil)
    }
}

/// The gesture and the person one fold leaves out.
private struct LeftOut {
    var gesture: ActivityLabel
    var person: UserID
}
