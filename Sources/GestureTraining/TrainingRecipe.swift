import GestureAnalysis
import GestureCore
import GestureLearning

/// What training takes when it is not told otherwise: the settings that leaving each person out
/// found best for people a model has not seen (docs/training.md), fitted to the data.
public struct TrainingRecipe: Sendable, Equatable {
    public var features: [String]
    public var window: Int
    public var augmentations: [Augmentation]
    public var epochs: Int
    /// What was chosen for the settings not given, e.g. "window 25 (0.5 s at 50 Hz)".
    public var choices: [String]

    /// Rotation rate, gravity and user acceleration: gravity tells how the forearm is turned.
    public static let featuresWithGravity = [
        "rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ",
    ]

    /// The other wrist, the watch turned a little twice, and two paces.
    public static let augmentations: [Augmentation] = [.mirror, .rotate, .rotate, .warp, .warp]

    /// The epochs of a model trained on its sessions alone.
    public static let epochsWithoutCopies = 30

    /// Fewer Adam steps leave a small dataset's model unfinished; its epochs take little time.
    public static let leastSteps = 500
    static let mostEpochs = 100

    /// The recipe for `dataset`; each setting given is kept as it is.
    public init(
        for dataset: Dataset, features: [String]? = nil, window: Int? = nil, augmentations: [Augmentation]? = nil,
        epochs: Int? = nil, batchSize: Int = TrainingOptions().batchSize
    ) {
        // Sessions of other rates are refused when the training data is made.
        let rate = dataset.sessions.map(\.nominalRate).median ?? 1
        self.features =
            features ?? (Self.measuresGravity(dataset) ? Self.featuresWithGravity : TrainingData.bookFeatures)
        self.window = window ?? Self.window(at: rate)
        self.augmentations = augmentations ?? Self.augmentations
        let batches = Self.batches(of: dataset, window: self.window, copies: self.augmentations.count, size: batchSize)
        self.epochs = epochs ?? Self.epochs(copies: self.augmentations.count, batchesPerEpoch: batches)
        choices = [
            window == nil
                ? "window \(self.window) (\((Double(self.window) / rate).shortText) s at \(rate.shortText) Hz)" : nil,
            features == nil ? "features \(self.features.joined(separator: " "))" : nil,
            augmentations == nil ? "copies \(self.augmentations.map(\.rawValue).joined(separator: " "))" : nil,
            epochs == nil ? "\(self.epochs) epochs" : nil,
        ].compactMap { $0 }
    }

    /// "chose for people the model has not seen: window 25 (0.5 s at 50 Hz), …".
    public var choicesText: String {
        "chose for people the model has not seen: \(choices.joined(separator: ", "))"
            + (choices.contains { $0.hasPrefix("copies") } ? "; --augment none trains the quickest model" : "")
    }

    /// Half a second of samples, but at least the book's 20 and at most a second.
    public static func window(at rate: Double) -> Int {
        min(max(20, Int((rate / 2).rounded())), max(1, Int(rate.rounded())))
    }

    /// Each copy adds an epoch's work, so the epochs fall as copies are added, keeping training
    /// within twice `epochsWithoutCopies` epochs of the sessions alone; but a dataset too small for
    /// `leastSteps` batches in those epochs gets more, up to `mostEpochs`.
    public static func epochs(copies: Int, batchesPerEpoch: Int) -> Int {
        let withinTwice = min(epochsWithoutCopies, max(1, 2 * epochsWithoutCopies / (copies + 1)))
        let enoughSteps = min(mostEpochs, (leastSteps + batchesPerEpoch - 1) / max(batchesPerEpoch, 1))
        return max(withinTwice, enoughSteps)
    }

    /// Whether the accelerometer measured gravity (about 1 g at rest): when it was taken out before
    /// recording, the gravity features are only the gyroscope's drifting sum.
    public static func measuresGravity(_ dataset: Dataset) -> Bool {
        let magnitudes = dataset.sessions.flatMap { session in
            stride(from: 0, to: session.rows.count, by: 10).map { index in
                let acceleration = session.rows[index].rawAcceleration
                return (acceleration * acceleration).sum().squareRoot()
            }
        }
        return magnitudes.median.map { (0.5...1.5).contains($0) } ?? false
    }

    /// Batches an epoch: each session's windows in chunks, each copy as many again.
    static func batches(of dataset: Dataset, window: Int, copies: Int, size: Int) -> Int {
        let windowing = Windowing(window: window)
        let chunks = dataset.sessions.reduce(0) { $0 + windowing.chunkCount(samples: $1.rows.count) }
        return max(1, (chunks * (copies + 1) + size - 1) / max(size, 1))
    }
}
