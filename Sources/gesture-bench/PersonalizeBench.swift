import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning
import GestureScenarios
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

struct PersonalizeBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "personalize",
        abstract: "Learning curves of personalisation: a new person's accuracy against the takes of theirs it used.",
        discussion: """
            seglearn-watch leaves each subject out in turn: a base model trained on the other six (as \
            `gesture-bench accuracy` trains it) is personalised with the start of each of the subject's recordings \
            (the first 1, 2, 5 of its twenty repetitions' length, and its first third), and tested on the last two \
            thirds. The simulated crowd: a base model trained on six simulated people, personalised for each of three \
            new ones with their first 1, 2, 5 takes of each gesture, tested on their takes 6–10; then a new gesture \
            (wave) from 5 takes. Each method is timed; training from scratch on the same takes is the comparison.
            """)

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case seglearnWatch = "seglearn-watch"
        case simulated
    }

    @Option(help: "The folder holding seglearn-watch/.") var datasets = "../shared/datasets"
    @Option(parsing: .upToNextOption, help: "The data to measure on.") var only: [Source] = Source.allCases
    @Option(help: "The seed of every training.") var seed: UInt64 = 1
    @Option(help: "finetune's epochs.") var finetuneEpochs = 60
    @Option(help: "finetune's learning rate.") var finetuneLearningRate: Float = 0.001
    @Option(help: "Training from scratch: epochs.") var scratchEpochs = 30
    @Option(parsing: .upToNextOption, help: "The methods to compare.")
    var methods: [Method] = [.knnDense, .knnLSTM, .finetuneDense, .finetuneLSTM, .scratch]

    enum Method: String, ExpressibleByArgument, CaseIterable {
        case knnDense = "knn-dense"
        case knnLSTM = "knn-lstm"
        case finetuneDense = "finetune-dense"
        case finetuneLSTM = "finetune-lstm"
        case finetuneAll = "finetune-all"
        case scratch
        /// seglearn-watch only: the base model's random convolutions fitted again with the person's
        /// takes (as `gesture personalize` fits them), alone or beside finetune-lstm or knn-dense.
        case randomConvolutions = "random-convolutions"
        case finetuneAndRandomConvolutions = "finetune-lstm+random-convolutions"
        case knnAndRandomConvolutions = "knn-dense+random-convolutions"

        var fitsRandomConvolutions: Bool { network != self }

        /// The method whose model the random convolutions go beside: itself for a method without
        /// them, nil for the random convolutions alone.
        var network: Method? {
            switch self {
            case .randomConvolutions: nil
            case .finetuneAndRandomConvolutions: .finetuneLSTM
            case .knnAndRandomConvolutions: .knnDense
            default: self
            }
        }
    }

    @Option(help: "random-convolutions: how many times the person's takes count among the other people's.")
    var personalRepeats = 20

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "gesture-bench-personalize-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        print("methods: \(methods.map(\.rawValue).joined(separator: ", ")); seed \(seed)")
        if only.contains(.seglearnWatch) {
            try measureSeglearn(in: RecordingsFolder(FilePath(root.appendingPathComponent("seglearn").path)))
        }
        if only.contains(.simulated) {
            try await measureSimulated(in: RecordingsFolder(FilePath(root.appendingPathComponent("simulated").path)))
        }
    }

    // MARK: seglearn-watch

    private func measureSeglearn(in folder: RecordingsFolder) throws {
        var seglearn = ImportedDataset.seglearnWatch
        seglearn.options.mirror = try MirrorRule("side=left", mirroring: Mirroring(across: .x))
        try seglearn.run(from: datasets, into: folder)
        let loaded = try DatasetLoader(folder: folder).load()
        let subjects = (1...7).map { "s0\($0)" }
        let rate = loaded.sessions.map(\.nominalRate).median ?? 1
        let points: [(name: String, share: Double)] = [
            ("1/20", 1.0 / 20), ("2/20", 2.0 / 20), ("5/20", 5.0 / 20), ("first third", 1.0 / 3),
        ]
        var curve = Curve(points: ["none"] + points.map(\.name), methods: methods)
        var timing: [String: [Double]] = [:]
        for subject in subjects {
            let started = ContinuousClock.now
            let others = try subjects.filter { $0 != subject }.map { name throws in try UserID(name) }
            let experiment = try Experiment(
                name: "seglearn-watch", features: TrainingRecipe.featuresWithGravity, window: 25,
                layers: LayerSizes(), training: try SessionSelection(users: others).apply(to: loaded),
                augmentation: AugmentationPlan([.mirror, .rotate, .rotate]),
                options: TrainingOptions(
                    randomConvolutions: methods.contains(where: \.fitsRandomConvolutions) ? .init(rate: rate) : nil),
                validation: nil, test: nil)
            let base = try experiment.train(seed: seed).model
            let baseSeconds = (ContinuousClock.now - started) / .seconds(1)
            let person = try PersonalSessions(
                base: base, baseName: "base", dataset: SessionSelection(users: [UserID(subject)]).apply(to: loaded))
            let test = person.sequences.map { $0.share(from: 1.0 / 3, to: 1) }
            curve.add("none", accuracy: Evaluation(model: base, sequences: test).accuracy, seconds: 0, for: nil)
            var line = "  \(subject) left out (base trained in \(String(format: "%.0f", baseSeconds)) s):"
            for point in points {
                let personal = person.sequences.map { $0.share(from: 0, to: point.share) }
                for method in methods {
                    guard
                        let (evaluation, seconds, model) = try personalised(
                            person, personal, by: method, others: experiment, test: test)
                    else { continue }
                    curve.add(point.name, accuracy: evaluation.accuracy, seconds: seconds, for: method)
                    if point.share == 1.0 / 3 {
                        line += String(format: " %@ %.3f", method.rawValue, evaluation.accuracy)
                        if subject == subjects[0], let model { timing[method.rawValue] = streamingMicroseconds(model) }
                    }
                }
            }
            if subject == subjects[0] { timing["base"] = streamingMicroseconds(base) }
            print(line)
        }
        print(
            "seglearn-watch, each subject left out, personalised with the start of each recording, tested on its last two thirds:"
        )
        print(curve.table(over: "subjects"))
        printStreaming(timing, "seglearn-watch (s01's models, personalised with the first third)")
    }

    // MARK: the simulated crowd

    private typealias NewGestureRun = (recall: Double, before: Double, after: Double)

    private func measureSimulated(in folder: RecordingsFolder) async throws {
        let crowd = try AccuracyBench.simulatedCrowd.map { name throws in try UserID(name) }
        let newcomers = try ["gus", "hal", "ivy"].map { name throws in try UserID(name) }
        _ = try await FaultyRecordings(users: crowd, takes: 5, faultRate: 0, seed: seed, rate: 25).record(into: folder)
        _ = try await FaultyRecordings(
            users: newcomers, gestures: [.shake, .chop, .drive, try ActivityLabel("wave")], takes: 10, faultRate: 0,
            seed: seed + 1, rate: 25
        ).record(into: folder)
        let loaded = try DatasetLoader(folder: folder).load()
        let base = try Experiment(
            name: "simulated", features: TrainingData.bookFeatures, window: 20, layers: LayerSizes(),
            training: SessionSelection(users: crowd).apply(to: loaded), augmentation: AugmentationPlan([]),
            options: TrainingOptions(), validation: nil, test: nil
        ).train(seed: seed).model
        var curve = Curve(points: ["none"] + Self.simulatedTakes.map { "\($0) a gesture" }, methods: methods)
        var newGesture: [String: [NewGestureRun]] = [:]
        for person in newcomers {
            let known = try PersonalSessions(
                base: base, baseName: "base",
                dataset: SessionSelection(gestures: [.shake, .chop, .drive], users: [person]).apply(to: loaded))
            try addLearningCurve(of: known, base: base, to: &curve)
            let all = try PersonalSessions(
                base: base, baseName: "base", dataset: SessionSelection(users: [person]).apply(to: loaded))
            for (method, run) in try newGestureRuns(known: known, all: all) {
                newGesture[method.rawValue, default: []].append(run)
            }
        }
        print("simulated crowd (base: 6 people × 3 gestures × 5 takes at 25 Hz), 3 new people, tested on takes 6–10:")
        print(curve.table(over: "people"))
        printNewGesture(newGesture)
    }

    private static let simulatedTakes = [1, 2, 5]

    /// The person's accuracy on takes 6–10 with no personalisation, then with 1, 2 and 5 takes of each gesture.
    private func addLearningCurve(of known: PersonalSessions, base: GestureModel, to curve: inout Curve) throws {
        let (takesByGesture, test) = known.byTake(testing: 5..<10)
        curve.add("none", accuracy: Evaluation(model: base, sequences: test).accuracy, seconds: 0, for: nil)
        for count in Self.simulatedTakes {
            let personal = takesByGesture.values.flatMap { $0.prefix(count) }
            for method in methods {
                guard let (model, seconds) = try personalise(known, personal, by: method) else { continue }
                curve.add(
                    "\(count) a gesture", accuracy: Evaluation(model: model, sequences: test).accuracy,
                    seconds: seconds, for: method)
            }
        }
    }

    /// Wave learnt from 5 takes (and 2 of each known gesture): its recall, and the known gestures'
    /// accuracy before and after, for each method but training from scratch.
    private func newGestureRuns(
        known: PersonalSessions, all: PersonalSessions
    ) throws -> [(Method, NewGestureRun)] {
        let (takesByGesture, test) = known.byTake(testing: 5..<10)
        let (allTakes, allTest) = all.byTake(testing: 5..<10)
        let waveIndex = all.personalizer.classNames.firstIndex(of: "wave")!
        let waveTest = allTest.filter { $0.labels.contains(waveIndex) }
        let before = takesByGesture.values.flatMap { $0.prefix(2) }
        let after = allTakes.flatMap { $0.key == "wave" ? Array($0.value.prefix(5)) : Array($0.value.prefix(2)) }
        return try methods.filter { $0 != .scratch }.compactMap { method in
            guard let (beforeModel, _) = try personalise(known, before, by: method),
                let (afterModel, _) = try personalise(all, after, by: method)
            else { return nil }
            let recall = Evaluation(model: afterModel, sequences: waveTest).classes[waveIndex].recall
            return (
                method,
                (
                    recall, Evaluation(model: beforeModel, sequences: test).accuracy,
                    Evaluation(model: afterModel, sequences: test).accuracy
                )
            )
        }
    }

    private func printNewGesture(_ runs: [String: [NewGestureRun]]) {
        print("a new gesture, wave, from 5 takes (and 2 of each known gesture), median over the new people:")
        for method in methods where method != .scratch {
            guard let runs = runs[method.rawValue] else { continue }
            print(
                String(
                    format: "  %@ wave recall %.3f; the other gestures' window accuracy %.3f before, %.3f after",
                    method.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0), median(runs.map(\.recall)),
                    median(runs.map(\.before)), median(runs.map(\.after))))
        }
    }

    // MARK: personalising

    /// `personalise`'s evaluation on `test`, with the seconds it took; for the methods with random
    /// convolutions, theirs fitted again on the base model's training sessions (`others`, with their
    /// copies) and `personal`.
    private func personalised(
        _ person: PersonalSessions, _ personal: [LabeledSequence], by method: Method, others: Experiment,
        test: [LabeledSequence]
    ) throws -> (evaluation: Evaluation, seconds: Double, model: GestureModel?)? {
        guard method.fitsRandomConvolutions else {
            return try personalise(person, personal, by: method).map {
                (Evaluation(model: $0.0, sequences: test), $0.1, $0.0)
            }
        }
        let started = ContinuousClock.now
        let personalizer = person.personalizer
        guard
            let network = try method.network.map({ try personalise(person, personal, by: $0)?.0 }) ?? personalizer.base
        else { return nil }
        let model = try personalizer.withRandomConvolutions(
            network, others: try others.trainingSequences(seed: seed), personal: personal, repeats: personalRepeats,
            seed: seed)
        let evaluation =
            method.network == nil
            ? Evaluation(classifier: model.randomConvolutions!, sequences: test)
            : Evaluation(model: model, sequences: test)
        return (evaluation, (ContinuousClock.now - started) / .seconds(1), model)
    }

    /// The model `method` makes from `personal`, and the seconds it took; nil where it cannot (from
    /// scratch without a window of every class, random convolutions).
    private func personalise(
        _ person: PersonalSessions, _ personal: [LabeledSequence], by method: Method
    ) throws
        -> (GestureModel, Double)?
    {
        let personalizer = person.personalizer
        let started = ContinuousClock.now
        let model: GestureModel
        switch method {
        case .knnDense, .knnLSTM:
            model = try personalizer.nearestNeighbours(
                personal, user: person.user, embedding: method == .knnDense ? .dense : .lstm)
        case .finetuneDense, .finetuneLSTM, .finetuneAll:
            model = try personalizer.finetune(
                personal, validation: [], user: person.user,
                layers: [.finetuneDense: .dense, .finetuneLSTM: .lstm][method] ?? .all,
                options: TrainingOptions(epochs: finetuneEpochs, learningRate: finetuneLearningRate, seed: seed)
            ).model
        case .randomConvolutions, .finetuneAndRandomConvolutions, .knnAndRandomConvolutions:
            return nil
        case .scratch:
            let base = personalizer.base
            let trainer = Trainer(
                model: ModelDescription(
                    featureNames: base.featureNames, windowing: base.windowing, samplingRate: base.samplingRate,
                    classNames: personalizer.classNames, layers: base.architecture.layers),
                options: TrainingOptions(epochs: scratchEpochs, seed: seed))
            do { model = try trainer.train(personal).model } catch { return nil }
        }
        return (model, (ContinuousClock.now - started) / .seconds(1))
    }

    /// The median of 20 runs of 1,000 streaming predictions, in microseconds per prediction.
    private func streamingMicroseconds(_ model: GestureModel) -> [Double] {
        let classifier = StreamingClassifier(model: model)
        let window = (0..<model.architecture.windowSize).map { Float(($0 * 7919) % 200) / 100 - 1 }
        var state = classifier.initialState
        return (0..<20).map { _ in
            let started = ContinuousClock.now
            for _ in 0..<1000 { _ = classifier.step(window, state: &state) }
            return (ContinuousClock.now - started) / .microseconds(1) / 1000
        }
    }

    private func printStreaming(_ timing: [String: [Double]], _ what: String) {
        print("one streaming prediction, median of 20 × 1,000, \(what):")
        for (name, runs) in timing.sorted(by: { $0.key < $1.key }) {
            print(
                "  " + name.padding(toLength: 15, withPad: " ", startingAt: 0) + String(format: "%.2f µs", median(runs))
            )
        }
    }
}

/// Accuracy and time by point of a learning curve and method, over folds.
private struct Curve {
    let points: [String]
    let methods: [PersonalizeBench.Method]
    private var runs: [String: [(accuracy: Double, seconds: Double)]] = [:]

    init(points: [String], methods: [PersonalizeBench.Method]) {
        self.points = points
        self.methods = methods
    }

    /// `method` nil: the base model, the same for every method.
    mutating func add(_ point: String, accuracy: Double, seconds: Double, for method: PersonalizeBench.Method?) {
        runs["\(point)/\(method?.rawValue ?? "")", default: []].append((accuracy, seconds))
    }

    func table(over folds: String) -> String {
        var lines = [
            "  used             "
                + methods.map { $0.rawValue.padding(toLength: 29, withPad: " ", startingAt: 0) }.joined()
        ]
        for point in points {
            var line = "  " + point.padding(toLength: 17, withPad: " ", startingAt: 0)
            for method in methods {
                let values = runs["\(point)/\(method.rawValue)"] ?? runs["\(point)/"] ?? []
                line +=
                    (values.isEmpty
                    ? "-"
                    : String(
                        format: "%.3f (%.3f–%.3f) %.1fs", median(values.map(\.accuracy)),
                        values.map(\.accuracy).min()!, values.map(\.accuracy).max()!, median(values.map(\.seconds))))
                    .padding(toLength: 29, withPad: " ", startingAt: 0)
            }
            lines.append(line)
        }
        lines.append("  window accuracy: median (least–most) over \(folds), and the median seconds personalising took")
        return lines.joined(separator: "\n")
    }
}

extension LabeledSequence {
    /// The samples from `start` to `end`, as shares of its length.
    fileprivate func share(from start: Double, to end: Double) -> LabeledSequence {
        let range = Int(Double(sampleCount) * start)..<Int(Double(sampleCount) * end)
        return LabeledSequence(
            session: session, user: user, copyOf: copyOf, featureCount: featureCount,
            features: Array(features[range.lowerBound * featureCount..<range.upperBound * featureCount]),
            labels: Array(labels[range]))
    }
}

extension PersonalSessions {
    /// Each gesture's takes in the order they were recorded, those before the `testing` ones, and
    /// the `testing` takes of every gesture.
    fileprivate func byTake(testing: Range<Int>) -> (takes: [String: [LabeledSequence]], test: [LabeledSequence]) {
        let byGesture = Dictionary(grouping: sequences) { $0.gesture(classNames: personalizer.classNames) ?? "" }
            .mapValues { $0.sorted { $0.session < $1.session } }
        return (
            byGesture.mapValues { Array($0.prefix(testing.lowerBound)) },
            byGesture.values.flatMap { $0[testing.clamped(to: $0.indices)] }
        )
    }
}
