import FoundationEssentials
import GestureMotion
import Glibc

public struct TrainingOptions: Sendable, Equatable {
    public var epochs: Int
    /// Chunks per batch.
    public var batchSize: Int
    public var learningRate: Float
    public var schedule: LearningRateSchedule
    public var seed: UInt64
    /// How the rejection's test of the motion's statistics is calibrated; nil leaves it out.
    public var motionRejection: MotionCalibration?
    /// MiniRocket's classifier to train beside the network, on the same windows; nil for the
    /// network alone.
    public var randomConvolutions: RandomConvolutionClassifier.Settings?
    /// The share of each window's target spread over every class (label smoothing); 0 trains on
    /// the labels alone.
    public var labelSmoothing: Float
    /// When above 0, the model kept is the mean of the parameters after each of the last
    /// `averagedEpochs` epochs (weight averaging), batch norm's statistics then re-estimated on
    /// the training windows: the mean of where the last epochs' steps wander generalizes better than
    /// any one of them. 0 keeps the epoch of least loss, as does a training stopped early.
    public var averagedEpochs: Int
    /// The threads the network's passes share their work with (one a processor, up to four,
    /// unless told). With the hand-written kernels the trained model is the same whatever their number.
    public var threads: Int

    /// The processors this process may run on, up to four: beyond that the model's products are
    /// too small to share.
    public static var availableThreads: Int { min(ProcessInfo.processInfo.activeProcessorCount, 4) }

    public init(
        epochs: Int = 30, batchSize: Int = 32, learningRate: Float = 1e-3, schedule: LearningRateSchedule = .constant,
        seed: UInt64 = 1, motionRejection: MotionCalibration? = nil,
        randomConvolutions: RandomConvolutionClassifier.Settings? = nil, labelSmoothing: Float = 0,
        averagedEpochs: Int = 0, threads: Int = TrainingOptions.availableThreads
    ) {
        precondition((0..<1).contains(labelSmoothing), "label smoothing is from 0 to under 1")
        precondition(averagedEpochs >= 0, "the epochs averaged are 0 or more")
        self.averagedEpochs = averagedEpochs
        self.threads = threads
        self.epochs = epochs
        self.batchSize = batchSize
        self.learningRate = learningRate
        self.schedule = schedule
        self.seed = seed
        self.motionRejection = motionRejection
        self.randomConvolutions = randomConvolutions
        self.labelSmoothing = labelSmoothing
    }
}

/// How the learning rate changes from epoch to epoch.
public enum LearningRateSchedule: String, Sendable, CaseIterable {
    case constant
    /// Cosine annealing: the full rate in the first epoch, falling along half a cosine to a
    /// hundredth of it in the last.
    case cosine

    public func rate(_ learningRate: Float, epoch: Int, of epochs: Int) -> Float {
        switch self {
        case .constant:
            return learningRate
        case .cosine:
            let progress = epochs > 1 ? Float(epoch - 1) / Float(epochs - 1) : 0
            let floor = learningRate / 100
            return floor + (learningRate - floor) * (1 + cos(.pi * progress)) / 2
        }
    }
}

/// One epoch's figures. Training figures come from the training passes themselves (with dropout);
/// validation figures from the inference pass, over real windows only.
public struct EpochReport: Sendable, Equatable, Encodable {
    public var epoch: Int
    public var trainingLoss: Float
    public var trainingAccuracy: Double
    public var validationLoss: Float?
    public var validationAccuracy: Double?
    public var seconds: Double

    public init(
        epoch: Int, trainingLoss: Float, trainingAccuracy: Double, validationLoss: Float?,
        validationAccuracy: Double?, seconds: Double
    ) {
        self.epoch = epoch
        self.trainingLoss = trainingLoss
        self.trainingAccuracy = trainingAccuracy
        self.validationLoss = validationLoss
        self.validationAccuracy = validationAccuracy
        self.seconds = seconds
    }
}

public struct TrainingResult: Sendable {
    /// The model of the epoch with the lowest validation loss (training loss without validation),
    /// or with `TrainingOptions.averagedEpochs`, the mean of the last epochs'; if training was
    /// cancelled before its first epoch ended, the model as far as it got.
    public var model: GestureModel
    public var history: [EpochReport]
    /// The epoch `model` comes from (the last averaged), 0 if none ended.
    public var bestEpoch: Int
    /// With weight averaging, the first of the epochs averaged; nil when one epoch was kept.
    public var averagedFrom: Int?
    /// Whether the cancellation check stopped training before the last epoch.
    public var wasCancelled: Bool
    /// With label smoothing, the scale the network's logits were multiplied by after training
    /// (`SoftmaxTemperature.fittedScale`); nil without.
    public var logitScale: Float?
}

/// Why training cannot start.
public struct TrainingError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// Trains `GestureModel`s: chunks shuffled each epoch, Adam, the best epoch kept.
public struct Trainer: Sendable {
    /// The model to train: its features, windowing, classes and architecture.
    public var model: ModelDescription
    public var options: TrainingOptions

    public init(model: ModelDescription, options: TrainingOptions) {
        self.model = model
        self.options = options
    }

    /// Trains on `training`, reports each epoch, and stops early (keeping the best epoch so far)
    /// once `isCancelled` returns true; it is asked after every batch.
    public func train(
        _ training: [LabeledSequence], validation: [LabeledSequence] = [],
        onEpoch: (EpochReport) -> Void = { _ in },
        isCancelled: () -> Bool = { false }
    ) throws(TrainingError) -> TrainingResult {
        try check(training, validation: validation)
        var untrained = GestureModel(
            untrained: model, normalization: FeatureNormalization(fitting: training), seed: options.seed)
        untrained.trainingRecord = TrainingRecord(
            training: training, validation: validation, windowing: model.windowing, classCount: model.classNames.count)
        var run = TrainingRun(start: untrained, options: options, training: training, validation: validation)
        var result = epochs(of: &run, onEpoch: onEpoch, isCancelled: isCancelled)
        if result.averagedFrom != nil {
            result.model = try result.model.adaptingNormalization(to: training)
        }
        if options.labelSmoothing > 0 {
            let scale = run.fittedLogitScale(of: result.model)
            result.model = result.model.scalingLogits(by: scale)
            result.logitScale = scale
        }
        if let settings = options.randomConvolutions, !result.wasCancelled {
            result.model.randomConvolutions = try randomConvolutions(training, settings: settings)
        }
        result.model = result.model.calibratingRejection(on: training, motion: options.motionRejection)
        return result
    }

    func randomConvolutions(
        _ training: [LabeledSequence], settings: RandomConvolutionClassifier.Settings
    ) throws(TrainingError) -> RandomConvolutionClassifier {
        guard settings.history >= RandomConvolutions.leastHistory else {
            throw TrainingError(
                description: "random convolutions look back at least \(RandomConvolutions.leastHistory) samples, not "
                    + "\(settings.history); at this rate train with --classifier network")
        }
        do {
            return try RandomConvolutionClassifier(
                training: training, classNames: model.classNames, windowing: model.windowing, settings: settings,
                seed: options.seed, threads: options.threads)
        } catch {
            throw TrainingError(
                description:
                    "the random convolutions' ridge regression has no solution (feature \(error.failedColumn)); "
                    + "train with --classifier network")
        }
    }

    /// Runs the epochs, reporting each, keeping the best; stops early once `isCancelled`.
    func epochs(
        of run: inout TrainingRun, onEpoch: (EpochReport) -> Void, isCancelled: () -> Bool
    ) -> TrainingResult {
        var history: [EpochReport] = []
        var leastLoss = Float.infinity
        var best: (epoch: Int, parameters: [Float])?
        let epochs = max(options.epochs, 1)
        var average = ParameterAverage(last: options.averagedEpochs, of: epochs)
        for epoch in 1...epochs {
            guard let report = run.epoch(epoch, isCancelled: isCancelled) else {
                return result(run.model, kept: best, history: history, cancelled: true)
            }
            history.append(report)
            let parameters = run.model.parameters
            let loss = report.validationLoss ?? report.trainingLoss
            if loss < leastLoss {
                (leastLoss, best) = (loss, (epoch, parameters))
            }
            average.add(parameters, after: epoch)
            onEpoch(report)
        }
        if let mean = average.mean {
            return result(
                run.model, kept: (epochs, mean), history: history, cancelled: false, averagedFrom: average.first)
        }
        return result(run.model, kept: best, history: history, cancelled: false)
    }

    private func result(
        _ model: GestureModel, kept: (epoch: Int, parameters: [Float])?, history: [EpochReport], cancelled: Bool,
        averagedFrom: Int? = nil
    ) -> TrainingResult {
        let model = kept.map { model.replacingParameters($0.parameters) } ?? model
        return TrainingResult(
            model: model, history: history, bestEpoch: kept?.epoch ?? 0, averagedFrom: averagedFrom,
            wasCancelled: cancelled)
    }

    /// The clear errors for input training cannot use, before any work.
    func check(_ training: [LabeledSequence], validation: [LabeledSequence]) throws(TrainingError) {
        try checkSessions(training, validation: validation)
        let classes = model.classNames.count
        var windowsPerClass = [Int](repeating: 0, count: classes)
        for sequence in training {
            for label in model.windowing.windowLabels(sequence.labels, classCount: classes) {
                windowsPerClass[label] += 1
            }
        }
        let missing = windowsPerClass.indices.filter { windowsPerClass[$0] == 0 }.map { model.classNames[$0] }
        guard missing.isEmpty else {
            throw TrainingError(
                description:
                    "no training window is labeled \(missing.joined(separator: ", ")); record more of it, or drop the class"
            )
        }
    }

    /// `check`'s errors but for classes without windows.
    func checkSessions(_ training: [LabeledSequence], validation: [LabeledSequence]) throws(TrainingError) {
        guard !training.isEmpty else { throw TrainingError(description: "there are no training sessions") }
        let classes = model.classNames.count
        guard classes >= 2 else {
            throw TrainingError(description: "a classifier needs at least two classes, not \(model.classNames)")
        }
        for (set, sequences) in [("training", training), ("validation", validation)] {
            for sequence in sequences {
                guard sequence.featureCount == model.featureNames.count else {
                    throw TrainingError(
                        description:
                            "\(set) session \(sequence.session) has \(sequence.featureCount) features, the model reads \(model.featureNames.count) (\(model.featureNames.joined(separator: " ")))"
                    )
                }
                guard sequence.sampleCount >= model.windowing.window else {
                    throw TrainingError(
                        description:
                            "\(set) session \(sequence.session) has \(sequence.sampleCount) samples, fewer than one window of \(model.windowing.window); leave it out or choose a smaller window"
                    )
                }
                if let bad = sequence.features.firstIndex(where: { !$0.isFinite }) {
                    throw TrainingError(
                        description:
                            "\(set) session \(sequence.session) has a non-finite value (\(sequence.features[bad])) in \(model.featureNames[bad % sequence.featureCount]) at sample \(bad / sequence.featureCount)"
                    )
                }
                if let bad = sequence.labels.first(where: { !(0..<classes).contains($0) }) {
                    throw TrainingError(
                        description:
                            "\(set) session \(sequence.session) has class index \(bad); there are \(classes) classes")
                }
            }
        }
    }
}

/// One training's state from batch to batch: the parameters in Float, the data cut into chunks,
/// the buffers, Adam's moments and the random numbers for shuffling and dropout.
struct TrainingRun {
    private let start: GestureModel
    /// How many of the leading trainable parameters stay as they start.
    private let frozen: Int
    private var parameters: [Float]
    private let network: Network
    private let training: ChunkSet
    private let validation: ChunkSet?
    private let options: TrainingOptions
    private let workspace: Workspace
    private let team: ThreadTeam?
    private var gradient: [Float]
    private var adam: Adam
    private var random: Xoshiro256
    private var order: [Int]

    /// Training that starts from `start`'s parameters and normalization; the first `frozen`
    /// trainable parameters stay as they are.
    init(
        start: GestureModel, frozen: Int = 0, options: TrainingOptions, training: [LabeledSequence],
        validation: [LabeledSequence]
    ) {
        let classes = start.architecture.classes, windowing = start.windowing
        self.start = start
        self.frozen = frozen
        parameters = start.parameters
        network = start.network
        self.training = ChunkSet(
            training, windowing: windowing, classCount: classes, normalization: start.normalization)
        self.validation =
            validation.isEmpty
            ? nil
            : ChunkSet(validation, windowing: windowing, classCount: classes, normalization: start.normalization)
        self.options = options
        team = options.threads > 1 ? ThreadTeam(threads: options.threads) : nil
        workspace = Workspace(network, capacity: options.batchSize * windowing.windowsPerChunk, team: team)
        gradient = [Float](repeating: 0, count: network.layout.trainableCount)
        adam = Adam(learningRate: options.learningRate, parameterCount: network.layout.trainableCount - frozen)
        random = Xoshiro256(seed: options.seed &+ 1)
        order = Array(0..<self.training.chunkCount)
    }

    /// The model the parameters make so far.
    var model: GestureModel { start.replacingParameters(parameters) }

    /// The scale on `model`'s logits that fits the training windows' labels best.
    func fittedLogitScale(of model: GestureModel) -> Float {
        SoftmaxTemperature.fittedScale(
            probabilities: training.probabilities(
                network, parameters: model.parameters, batchSize: options.batchSize, team: team),
            labels: training.labels, weights: training.lossWeights, classCount: network.architecture.classes)
    }

    /// One pass over the training chunks in a new order, then the validation figures; nil if
    /// cancelled on the way.
    mutating func epoch(_ epoch: Int, isCancelled: () -> Bool) -> EpochReport? {
        let start = ContinuousClock.now
        random.shuffle(&order)
        adam.learningRate = options.schedule.rate(options.learningRate, epoch: epoch, of: options.epochs)
        var tally = EpochTally()
        for first in stride(from: 0, to: order.count, by: options.batchSize) {
            if isCancelled() { return nil }
            let shape = training.gather(order[first..<min(first + options.batchSize, order.count)], into: workspace)
                .shape
            tally.add(loss: step(shape), workspace: workspace, rows: shape.rows, classes: network.architecture.classes)
        }
        let rounded = model.parameters
        let figures = validation.map { chunks in
            chunks.lossAndAccuracy(
                probabilities: chunks.probabilities(
                    network, parameters: rounded, batchSize: options.batchSize, team: team),
                classes: network.architecture.classes)
        }
        return EpochReport(
            epoch: epoch, trainingLoss: tally.loss, trainingAccuracy: tally.accuracy,
            validationLoss: figures?.loss, validationAccuracy: figures?.accuracy,
            seconds: (ContinuousClock.now - start) / .seconds(1))
    }

    /// Forward, backward and Adam on the batch in the workspace; returns its loss.
    private mutating func step(_ shape: BatchShape) -> Float {
        let network = network, workspace = workspace
        return parameters.withUnsafeMutableBufferPointer { parameters in
            gradient.withUnsafeMutableBufferPointer { gradient in
                network.forwardTraining(parameters.baseAddress!, shape: shape, workspace: workspace, random: &random)
                let loss = network.backward(
                    parameters.baseAddress!, shape: shape, workspace: workspace,
                    labelSmoothing: options.labelSmoothing, gradient: gradient.baseAddress!)
                adam.update(
                    parameters.baseAddress! + frozen, gradient: gradient.baseAddress! + frozen, team: workspace.team)
                return loss
            }
        }
    }
}

/// Loss and accuracy over an epoch's batches, weighted by their real windows.
private struct EpochTally {
    private var weightedLoss: Double = 0
    private var windows = 0
    private var correct = 0

    mutating func add(loss: Float, workspace: Workspace, rows: Int, classes: Int) {
        var batchWindows = 0
        for row in 0..<rows where workspace.lossWeights[row] > 0 {
            batchWindows += 1
            let probabilities = UnsafeBufferPointer(start: workspace.probabilities + row * classes, count: classes)
            if argmax(probabilities) == workspace.labels[row] { correct += 1 }
        }
        weightedLoss += Double(loss) * Double(batchWindows)
        windows += batchWindows
    }

    var loss: Float { Float(weightedLoss / Double(max(windows, 1))) }
    var accuracy: Double { Double(correct) / Double(max(windows, 1)) }
}

/// Machine Learning by Tutorials' first check: can the model fit a handful of sessions at all?
public struct OverfitResult: Sendable, Equatable, Encodable {
    public var sessions: Int
    public var epochs: Int
    /// Window accuracy on the sessions themselves, without dropout.
    public var accuracy: Double
    public var fits: Bool
}

extension Trainer {
    /// Trains on `sessions` until the model predicts at least `target` of their windows right
    /// (without dropout) or the epochs run out.
    public func overfit(
        _ sessions: [LabeledSequence], target: Double = 0.99,
        onEpoch: (EpochReport) -> Void = { _ in }
    ) throws(TrainingError) -> OverfitResult {
        var fits = false
        let result = try train(
            sessions, validation: sessions,
            onEpoch: { report in
                onEpoch(report)
                fits = (report.validationAccuracy ?? 0) >= target
            }, isCancelled: { fits })
        return OverfitResult(
            sessions: sessions.count, epochs: result.history.count,
            accuracy: result.history.last?.validationAccuracy ?? 0, fits: fits)
    }
}

/// The sum of the parameters after each of a training's last epochs, for weight averaging.
struct ParameterAverage {
    /// The first epoch averaged: past the last when none is.
    let first: Int
    private var sum: [Double] = []
    private var count = 0

    init(last: Int, of epochs: Int) {
        first = epochs - min(last, epochs) + 1
    }

    mutating func add(_ parameters: [Float], after epoch: Int) {
        guard epoch >= first else { return }
        if sum.isEmpty { sum = Array(repeating: 0, count: parameters.count) }
        for index in parameters.indices { sum[index] += Double(parameters[index]) }
        count += 1
    }

    /// The mean of the parameters added, or nil before any was.
    var mean: [Float]? {
        count == 0 ? nil : sum.map { Float($0 / Double(count)) }
    }
}
