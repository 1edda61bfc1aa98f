import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureTraining

/// What a model reads, its layers and how it is trained: the options `train` and `crossval` share.
struct ModelOptions: ParsableArguments {
    @Option(
        parsing: .upToNextOption,
        help: """
            Features, by CSV column name (default: \(TrainingRecipe.featuresWithGravity.joined(separator: " ")), \
            without gravity's if the accelerometer did not measure it).
            """
    )
    var features: [String] = []
    @Option(help: "Samples per prediction window (default: 20, at most a second's).")
    var window: Int?
    @Option(
        help:
            "turi, the book's (Turi Create's: what Core ML, ONNX and C exports take), or temporal: a temporal convolution over the samples of each window first."
    )
    var architecture: ArchitectureKind = .turi
    @Option(help: "--architecture temporal: its filters.") var temporalFilters = 32
    @Option(help: "--architecture temporal: the samples each filter spans.") var temporalKernel = 5
    @Option(help: "--architecture temporal: convolutions stacked, each over the one before's output.")
    var temporalLayers = 1
    @Option(
        help: """
            book: the book's layers (64 convolution filters, 200 LSTM units, 128 dense units); board: 16, 32 \
            and 32, which fit a Cortex-M4 with 256 KB of flash and 64 KB of RAM in int8 (export --format c \
            --weights int8).
            """)
    var size: ModelSize = .book
    @Option(help: "The convolution's filters (default: --size's).") var convFilters: Int?
    @Option(help: "The LSTM's units (default: --size's).") var lstmUnits: Int?
    @Option(help: "The dense layer's units (default: --size's).") var denseUnits: Int?
    @Option(
        help: """
            Passes over the sessions and their copies (default: \(TrainingRecipe.epochsWithoutCopies) without copies, \
            fewer with them, so that training takes at most twice as long: 10 with the default copies).
            """)
    var epochs: Int?
    @Option(
        help: """
            Chunks of 20 windows per batch (default: 32, or fewer for a small dataset, down to 4, to make \
            \(TrainingRecipe.leastSteps) batches in all).
            """)
    var batch: Int?
    @Option(help: "Adam's learning rate.") var learningRate: Float = 0.001
    @Option(
        help: "constant, or cosine: the learning rate falls along half a cosine to a hundredth of it in the last epoch."
    )
    var schedule: LearningRateSchedule = .constant
    @Option var seed: UInt64 = 1
    @Option(
        help: """
            Threads training shares its work with (default: one a processor, up to 4; \(TrainingOptions.availableThreads) here). \
            On CPUs with AVX2 or AVX-512 the model is the same whatever their number.
            """)
    var threads: Int?
    @Option(
        help:
            "Train also on a copy of every training session: mirror (the other wrist, see --mirror-axis), rotate (the watch turned a little, see --rotation), warp (faster or slower, see --warp) or scale (stronger or weaker, see --scale). Repeatable; each adds a copy. none: no copies, the quickest model (default: \(TrainingRecipe.augmentations.map(\.rawValue).joined(separator: " ")))."
    )
    var augment: [AugmentChoice] = []
    @Option(name: .customLong("mirror-axis"), help: "The device axis --augment mirror reflects across: x, y or z.")
    var mirrorAxis: DeviceAxis = .x
    @Option(help: "The largest angle --augment rotate turns the watch by, in degrees.") var rotation = 15.0
    @Option(help: "The largest factor --augment warp makes a copy faster or slower by.") var warp = 1.25
    @Option(help: "The largest factor --augment scale makes a copy's motion stronger or weaker by.") var scale = 1.25
    @Option(
        help: """
            off, or the rejection's test of the motion's statistics too, with the share of a gesture's takes its \
            limit may leave unfound (each person's takes measured against the others'; for gestures held 8 s or \
            more, as exercises are, the share of their windows it rejects): 0 keeps the farthest; more rejects \
            more motion the model was not taught, and more of your takes (default: \
            \(TrainingRecipe.heldMotionShare) for held gestures, 0 when everyday motion is recorded as other, else off).
            """)
    var motionRejection: MotionRejectionSetting?
    @Option(
        help: """
            network: the network alone; both: MiniRocket's random convolutions with a ridge classifier trained \
            beside it, each window's class probabilities the mean of the two's: more accurate for new people and \
            fewer detections of motion it was not taught, for about twice the training, but later detections \
            (default: both where gestures are held 8 s or more, as exercises are, with copies; else the network).
            """)
    var classifier: ClassifierChoice?
    @Option(
        help: """
            The share of each window's target the network is taught to spread over every class (label \
            smoothing), from 0 to 0.9; its logits are then multiplied by the factor that fits the training \
            windows' labels best, so that detect's --threshold means what it did (default: 0, the labels alone).
            """)
    var labelSmoothing: Double?
    @Option(
        help: """
            Keep the mean of the weights after each of the last N epochs, batch norm's statistics measured \
            again on the training windows; 0 keeps the epoch of least loss (default: the last half of the \
            epochs, none of fewer than 4).
            """)
    var averageEpochs: Int?

    /// Usage errors for values no model can be made with.
    func check() throws {
        for (name, value) in [
            ("--window", window ?? 1), ("--epochs", epochs ?? 1), ("--batch", batch ?? 1),
            ("--conv-filters", layers.convolutionFilters), ("--lstm-units", layers.lstmUnits),
            ("--dense-units", layers.denseUnits), ("--temporal-filters", temporalFilters),
            ("--temporal-kernel", temporalKernel), ("--temporal-layers", temporalLayers),
        ] {
            try Failure.check(name, value, in: 1...GestureModel.largestSize)
        }
        if augment.contains(.none), augment.count > 1 {
            throw Failure.usage("--augment none makes no copies; it cannot be given with others")
        }
        // The recipe's window is at most 20; `experiment` checks the one it takes.
        try checkTemporalLayers(in: window ?? 20)
        try checkMemory()
        try Failure.check("--learning-rate", Double(learningRate), in: 1e-9...10, being: "a learning rate")
        if let threads { try Failure.check("--threads", threads, in: 1...64) }
        try Failure.check("--rotation", rotation, in: 0...180, being: "an angle in degrees")
        try Failure.check("--warp", warp, in: 1...4, being: "a factor")
        try Failure.check("--scale", scale, in: 1...4, being: "a factor")
        if let averageEpochs { try Failure.check("--average-epochs", averageEpochs, in: 0...GestureModel.largestSize) }
        if let labelSmoothing {
            try Failure.check("--label-smoothing", labelSmoothing, in: 0...0.9, being: "a share")
        }
        if case .share(let share)? = motionRejection {
            try Failure.check("--motion-rejection", share, in: 0...1, being: "off or a share")
        }
    }

    private func checkTemporalLayers(in window: Int) throws {
        if architecture == .temporal, window - temporalLayers * (min(temporalKernel, window) - 1) < 1 {
            throw Failure.usage(
                "--temporal-layers \(temporalLayers) of --temporal-kernel \(temporalKernel) do not fit in --window \(window)"
            )
        }
    }

    /// Refuses sizes whose training could not fit in this machine's memory, before allocating any.
    private func checkMemory() throws {
        let window = window ?? 20
        let batch = batch ?? TrainingOptions().batchSize
        let features = features.isEmpty ? TrainingRecipe.featuresWithGravity : features
        let architecture = Architecture(
            windowSize: window * features.count, classes: 2, layers: layers, window: window)
        let needed = architecture.trainingBytes(windowsPerBatch: batch * Windowing(window: window).windowsPerChunk)
        let available = Double(ProcessInfo.processInfo.physicalMemory)
        guard needed <= available else {
            throw Failure.usage(
                "a model of window \(window), layers \(layers.convolutionFilters)/\(layers.lstmUnits)/\(layers.denseUnits) and batch \(batch) "
                    + "needs about \(gigabytes(needed)) GB to train; this machine has \(gigabytes(available)) GB")
        }
    }

    private func gigabytes(_ bytes: Double) -> String { String(format: "%.1f", bytes / 1e9) }

    /// Checks the feature names given, before any data is read.
    func checkFeatures() throws {
        _ = try analysing { try features.map { name throws(UnknownFeature) in try Feature(named: name) } }
    }

    /// The settings for `data`: those given, and the recipe's for the rest.
    func recipe(for data: Dataset, asRecorded: Bool = false) -> TrainingRecipe {
        TrainingRecipe(
            for: data, features: features.isEmpty ? nil : features, window: window,
            augmentations: asRecorded ? [] : augment.isEmpty ? nil : augment.compactMap(\.copy), epochs: epochs,
            batchSize: batch,
            randomConvolutions: classifier.map { $0 == .both }, motionRejection: motionRejection,
            labelSmoothing: labelSmoothing.map(Float.init), averagedEpochs: averageEpochs)
    }

    /// An experiment on `training` with `recipe`'s settings and the rest of these options.
    func experiment(
        _ name: String, recipe: TrainingRecipe, training: Dataset, validation: Dataset?, test: Dataset?
    ) throws -> Experiment {
        try checkTemporalLayers(in: recipe.window)
        return try Experiment(
            name: name, features: recipe.features, window: recipe.window, layers: layers, training: training,
            augmentation: AugmentationPlan(
                recipe.augmentations, mirroring: Mirroring(across: mirrorAxis), maximumRotation: rotation,
                maximumWarp: warp, maximumScale: scale, seed: seed),
            options: TrainingOptions(
                epochs: recipe.epochs, batchSize: recipe.batchSize, learningRate: learningRate, schedule: schedule,
                seed: seed, motionRejection: recipe.motionRejection,
                randomConvolutions: recipe.randomConvolutions, labelSmoothing: recipe.labelSmoothing,
                averagedEpochs: recipe.averagedEpochs, threads: threads ?? TrainingOptions.availableThreads),
            validation: validation, test: test)
    }

    var layers: LayerSizes {
        let preset = size == .board ? LayerSizes.board : LayerSizes()
        return LayerSizes(
            convolutionFilters: convFilters ?? preset.convolutionFilters, lstmUnits: lstmUnits ?? preset.lstmUnits,
            denseUnits: denseUnits ?? preset.denseUnits,
            temporalFilters: architecture == .temporal ? temporalFilters : 0, temporalKernel: temporalKernel,
            temporalLayers: temporalLayers)
    }
}

/// `--classifier`: the network alone, or random convolutions beside it.
enum ClassifierChoice: String, ExpressibleByArgument, CaseIterable {
    case network
    case both
}

/// `--augment`: a copy to add, or none.
enum AugmentChoice: ExpressibleByArgument, Equatable {
    case none
    case copy(Augmentation)

    init?(argument: String) {
        if argument == "none" {
            self = .none
        } else if let augmentation = Augmentation(rawValue: argument) {
            self = .copy(augmentation)
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] { ["none"] + Augmentation.allCases.map(\.rawValue) }

    var copy: Augmentation? {
        if case .copy(let augmentation) = self { augmentation } else { nil }
    }
}

extension MotionRejectionSetting: ExpressibleByArgument {
    public init?(argument: String) {
        if argument == "off" {
            self = .off
        } else if let share = Double(argument) {
            self = .share(share)
        } else {
            return nil
        }
    }
}

enum ArchitectureKind: String, ExpressibleByArgument, CaseIterable {
    case turi, temporal
}

/// The layers' widths `--size` names.
enum ModelSize: String, ExpressibleByArgument, CaseIterable {
    case book, board
}
