import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning

/// Training on some users' sessions, choosing the epoch on others', and testing on the rest.
public struct Experiment: Sendable {
    public struct Run: Sendable {
        /// Window accuracy on the validation sessions at the epoch kept.
        public var validationAccuracy: Double?
        public var evaluation: Evaluation?
        /// Training time, augmentation included.
        public var seconds: Double

        public init(validationAccuracy: Double?, evaluation: Evaluation?, seconds: Double) {
            self.validationAccuracy = validationAccuracy
            self.evaluation = evaluation
            self.seconds = seconds
        }

        /// Each seed's window accuracy, their median, and the median training time.
        public static func foldSummary(_ runs: [Run]) -> String {
            let accuracies = runs.compactMap { $0.evaluation?.accuracy }
            return "window accuracy " + accuracies.map { String(format: "%.4f", $0) }.joined(separator: " ")
                + String(
                    format: ", median %.4f; macro F1 %.4f; trained in %.1f s", (accuracies.median ?? .nan),
                    (runs.compactMap { $0.evaluation?.macroF1 }.median ?? .nan), (runs.map(\.seconds).median ?? .nan))
        }

        public var summary: String {
            var parts: [String] = []
            if let validationAccuracy { parts.append(String(format: "validation accuracy %.4f", validationAccuracy)) }
            if let evaluation {
                parts.append(
                    String(
                        format: "test window accuracy %.4f, macro F1 %.4f, session accuracy %.4f (%d of %d)",
                        evaluation.accuracy, evaluation.macroF1, evaluation.sessionAccuracy,
                        evaluation.sessionsRecognised, evaluation.sessionsWithGesture))
            }
            parts.append(String(format: "trained in %.1f s", seconds))
            return parts.joined(separator: "; ")
        }
    }

    public var name: String
    public var description: ModelDescription
    public var trainingSessions: Dataset
    /// The training sessions without augmentation.
    public var training: TrainingData
    /// Made again for each run, with the run's seed, as `gesture train` makes it.
    public var augmentation: AugmentationPlan
    /// Each run's, but for its seed.
    public var options: TrainingOptions
    public var validation: TrainingData?
    public var test: TrainingData?

    public init(
        name: String, features: [String], window: Int, windowsPerChunk: Int = 20, layers: LayerSizes,
        training: Dataset, augmentation: AugmentationPlan, options: TrainingOptions, validation: Dataset?,
        test: Dataset?
    ) throws {
        let chosen = try features.map { name throws(UnknownFeature) in try Feature(named: name) }
        self.name = name
        trainingSessions = training
        self.training = try TrainingData(dataset: training, features: chosen)
        self.augmentation = augmentation
        self.options = options
        let classNames = self.training.classNames
        self.validation = try validation.map { dataset throws(AnalysisError) in
            try Self.checkClasses(of: dataset, against: classNames)
            return try TrainingData(dataset: dataset, features: chosen, classNames: classNames)
        }
        self.test = try test.map { dataset throws(AnalysisError) in
            try TrainingData(dataset: dataset, features: chosen, classNames: classNames)
        }
        description = ModelDescription(
            featureNames: features, windowing: Windowing(window: window, windowsPerChunk: windowsPerChunk),
            samplingRate: self.training.rate, classNames: self.training.classNames, layers: layers)
    }

    public var summary: String {
        let counts = [("train", training), ("validation", validation), ("test", test)].compactMap { part, data in
            data.map { "\($0.sequences.count) \(part)" }
        }
        let augmented =
            augmentation.augmentations.isEmpty
            ? "" : " (and \(augmentation.augmentations.map(\.rawValue).joined(separator: ", ")) copies)"
        return "\(counts.joined(separator: " / ")) sessions\(augmented), \(description.classNames.count) classes, "
            + "window \(description.windowing.window) at \(String(format: "%g", training.rate)) Hz, features \(description.featureNames.joined(separator: " ")), "
            + (description.layers.temporalFilters > 0
                ? "\(description.layers.temporalLayers) temporal convolutions of \(description.layers.temporalFilters) × \(description.layers.temporalKernel) samples, "
                : "")
            + "layers \(description.layers.convolutionFilters)/\(description.layers.lstmUnits)/\(description.layers.denseUnits), "
            + "\(options.epochs) epochs of batches of \(options.batchSize), learning rate \(options.learningRate) \(options.schedule.rawValue)"
    }

    /// `size` models, from seeds seed·100 + 1 …, scored by their mean probabilities.
    public func run(seed: UInt64, ensemble size: Int) throws -> Run {
        guard size > 1 else { return try run(seed: seed) }
        let start = ContinuousClock.now
        let models = try (1...size).map { try train(seed: seed * 100 + UInt64($0)).model }
        return Run(
            validationAccuracy: nil,
            evaluation: test.map { Evaluation(ensemble: Ensemble(models), sequences: $0.sequences) },
            seconds: (ContinuousClock.now - start) / .seconds(1))
    }

    /// A run of MiniRocket's classifier instead of the network, on the same augmented sessions.
    public func run(seed: UInt64, randomConvolutions settings: RandomConvolutionClassifier.Settings) throws -> Run {
        let start = ContinuousClock.now
        let classifier = try RandomConvolutionClassifier(
            training: try trainingSequences(seed: seed), classNames: description.classNames,
            windowing: description.windowing, settings: settings, seed: seed, threads: options.threads)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return Run(
            validationAccuracy: nil,
            evaluation: test.map { Evaluation(classifier: classifier, sequences: $0.sequences) },
            seconds: seconds)
    }

    public func run(seed: UInt64) throws -> Run {
        try run(seed: seed, isCancelled: { false })!
    }

    /// A run with `seed`, or nil if `isCancelled` stopped its training.
    public func run(seed: UInt64, isCancelled: () -> Bool) throws -> Run? {
        let start = ContinuousClock.now
        let result = try train(seed: seed, isCancelled: isCancelled)
        guard !result.wasCancelled else { return nil }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return Run(
            validationAccuracy: result.history.first { $0.epoch == result.bestEpoch }?.validationAccuracy,
            evaluation: test.map { Evaluation(model: result.model, sequences: $0.sequences) }, seconds: seconds)
    }

    /// Trains with `seed`, as `gesture train` does: the sessions augmented with the seed, the
    /// epoch chosen on the validation sessions (or by training loss without them).
    public func train(
        seed: UInt64, onEpoch: (EpochReport) -> Void = { _ in }, isCancelled: () -> Bool = { false }
    ) throws -> TrainingResult {
        try trainer(seed: seed).train(
            try trainingSequences(seed: seed), validation: validation?.sequences ?? [], onEpoch: onEpoch,
            isCancelled: isCancelled)
    }

    /// The trainer of a run with `seed`.
    public func trainer(seed: UInt64) -> Trainer {
        var options = options
        options.seed = seed
        return Trainer(model: description, options: options)
    }

    /// The training sessions with the copies the augmentation makes with `seed`.
    public func trainingSequences(seed: UInt64) throws(AnalysisError) -> [LabeledSequence] {
        var plan = augmentation
        plan.seed = seed
        guard !plan.augmentations.isEmpty else { return training.sequences }
        return try TrainingData(
            dataset: trainingSessions, augmentedBy: plan, features: training.features,
            classNames: training.classNames
        ).sequences
    }

    /// Users whose sessions are in training and in validation or test: figures that flatter the model.
    public var sharedUsers: [UserID] {
        let checked = (validation?.sequences ?? []) + (test?.sequences ?? [])
        return TrainingData.sharedUsers(training.sequences, checked)
    }

    /// Validation windows of a class the model cannot predict would only lower its figures.
    private static func checkClasses(of validation: Dataset, against classNames: [String]) throws(AnalysisError) {
        let known = Set(classNames)
        for session in validation.sessions {
            if let label = session.rows.lazy.map(\.activity.rawValue).first(where: { !known.contains($0) }) {
                throw AnalysisError(
                    "validation session \(session.id) has the class '\(label)', which the training set lacks "
                        + "(it has \(classNames.joined(separator: ", ")))")
            }
        }
    }
}

/// How a figure spreads over folds: mean, standard deviation, least and most.
public struct Spread: Sendable {
    public var values: [Double]

    public init(_ values: [Double]) { self.values = values }

    public var mean: Double { values.reduce(0, +) / Double(max(values.count, 1)) }

    public var standardDeviation: Double {
        let mean = mean
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(max(values.count - 1, 1))).squareRoot()
    }

    public func summary(of figure: String, over folds: String) -> String {
        "mean \(figure) " + String(format: "%.4f", mean) + " over \(values.count) \(folds) "
            + String(
                format: "(standard deviation %.4f, least %.4f, most %.4f)", standardDeviation, values.min() ?? 0,
                values.max() ?? 0)
    }
}
