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
    /// Chunks a batch.
    public var batchSize: Int
    /// What was chosen for the settings not given, e.g. "window 20 (0.4 s at 50 Hz)".
    public var choices: [String]
    /// Whether the copies were chosen rather than given.
    public var choseCopies: Bool
    /// MiniRocket's classifier beside the network, or nil for the network alone.
    public var randomConvolutions: RandomConvolutionClassifier.Settings?
    /// The rejection's test of the motion's statistics beside the distance, or nil for the distance alone.
    public var motionRejection: MotionCalibration?
    /// The share of each window's target the network is taught to spread over every class: none
    /// unless given, since with the logits scaled back it cost basic-motions' windows what it gave
    /// seglearn-watch's (docs/training.md).
    public var labelSmoothing: Float
    /// The last epochs whose weights are averaged into the model (`TrainingOptions.averagedEpochs`).
    public var averagedEpochs: Int

    /// Rotation rate, gravity and user acceleration: gravity tells how the forearm is turned.
    public static let featuresWithGravity = [
        "rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ",
    ]

    /// The other wrist, the watch turned a little twice, and two paces.
    public static let augmentations: [Augmentation] = [.mirror, .rotate, .rotate, .warp, .warp]

    /// The epochs of a model trained on its sessions alone.
    public static let epochsWithoutCopies = 30

    /// The last half of the epochs, when that is at least two: averaging the weights of the last 5 of
    /// 10 epochs made leaving each person out of seglearn-watch less dependent on the seed (docs/training.md).
    public static func averagedEpochs(of epochs: Int) -> Int {
        epochs / 2 >= 2 ? epochs / 2 : 0
    }

    /// Fewer Adam steps leave a small dataset's model unfinished.
    public static let leastSteps = 500
    static let largestBatch = TrainingOptions().batchSize
    static let smallestBatch = 4

    /// The recipe for `dataset`; each setting given is kept as it is.
    public init(
        for dataset: Dataset, features: [String]? = nil, window: Int? = nil, augmentations: [Augmentation]? = nil,
        epochs: Int? = nil, batchSize: Int? = nil, randomConvolutions: Bool? = nil,
        motionRejection: MotionRejectionSetting? = nil, labelSmoothing: Float? = nil, averagedEpochs: Int? = nil
    ) {
        // Sessions of other rates are refused when the training data is made.
        let rate = dataset.sessions.map(\.nominalRate).median ?? 1
        let gestureSeconds = Self.medianGestureSeconds(in: dataset)
        self.features =
            features ?? (Self.measuresGravity(dataset) ? Self.featuresWithGravity : TrainingData.bookFeatures)
        self.window = window ?? Self.window(at: rate, gestureSeconds: gestureSeconds)
        self.augmentations = augmentations ?? Self.augmentations
        choseCopies = augmentations == nil
        let copies = self.augmentations.count
        let chunks = Self.chunks(of: dataset, window: self.window) * (copies + 1)
        self.epochs = epochs ?? Self.epochs(copies: copies)
        self.batchSize = batchSize ?? Self.batchSize(chunksPerEpoch: chunks, epochs: self.epochs)
        let convolutions = RandomConvolutionClassifier.Settings(rate: rate)
        let choseConvolutions =
            randomConvolutions == nil
            && Self.choosesRandomConvolutions(convolutions, augmentations, gestureSeconds: gestureSeconds)
        self.randomConvolutions = (randomConvolutions ?? choseConvolutions) ? convolutions : nil
        let held = Self.isHeld(gestureSeconds)
        let chosenMotionRejection = Self.defaultMotionRejection(
            held: held, everydayMotion: Self.recordsEverydayMotion(dataset))
        let choseMotionRejection = motionRejection == nil && chosenMotionRejection != .off
        self.motionRejection = (motionRejection ?? chosenMotionRejection).calibration(perWindow: held)
        self.labelSmoothing = labelSmoothing ?? 0
        self.averagedEpochs = averagedEpochs ?? Self.averagedEpochs(of: self.epochs)
        choices = [
            window == nil
                ? "window \(self.window) (\((Double(self.window) / rate).shortText) s at \(rate.shortText) Hz)" : nil,
            features == nil ? "features \(self.features.joined(separator: " "))" : nil,
            choseCopies ? "copies \(self.augmentations.map(\.rawValue).joined(separator: " "))" : nil,
            epochs == nil ? "\(self.epochs) epochs" : nil,
            averagedEpochs == nil && self.averagedEpochs > 0
                ? "the weights of the last \(self.averagedEpochs.counting("epoch")) averaged" : nil,
            batchSize == nil && self.batchSize != Self.largestBatch ? "batches of \(self.batchSize)" : nil,
            choseConvolutions
                ? "random convolutions over \(RandomConvolutionClassifier.Settings.historySeconds.shortText) s beside the "
                    + "network (gestures held \(Int(gestureSeconds.rounded())) s)" : nil,
            choseMotionRejection
                ? "the motion's statistics beside the distance to reject motion it was not taught ("
                    + (held
                        ? "their limit leaving \(Int(Self.heldMotionShare * 100)) % of the held gestures' windows)"
                        : "everyday motion recorded as other)") : nil,
        ].compactMap { $0 }
    }

    /// What `gesture train` trained before the recipe, for comparing with it: the book's features,
    /// window 20, no copies and their epochs and batches, unless given, and no test of the motion's statistics.
    public static func firstDefaults(
        for dataset: Dataset, features: [String]? = nil, window: Int? = nil, epochs: Int? = nil,
        batchSize: Int? = nil, randomConvolutions: Bool? = nil
    ) -> TrainingRecipe {
        TrainingRecipe(
            for: dataset, features: features ?? TrainingData.bookFeatures, window: window ?? bookWindow,
            augmentations: [], epochs: epochs ?? epochsWithoutCopies, batchSize: batchSize ?? largestBatch,
            randomConvolutions: randomConvolutions, motionRejection: .off, labelSmoothing: 0, averagedEpochs: 0)
    }

    /// Random convolutions beside the network recognise new people better in motion kept up for
    /// two of their histories or more (exercises, walking), unless the quickest model was asked for
    /// (no copies) or the rate is too low for their history. A gesture much shorter than their history
    /// leaves them seeing mostly rest, and live its detection would wait for them.
    static func choosesRandomConvolutions(
        _ settings: RandomConvolutionClassifier.Settings, _ augmentations: [Augmentation]?, gestureSeconds: Double
    ) -> Bool {
        augmentations != [] && settings.history >= RandomConvolutions.leastHistory && isHeld(gestureSeconds)
    }

    /// Motion kept up this long or longer (exercises, walking, running) is held: two of the random
    /// convolutions' histories.
    static let heldSeconds = 2 * RandomConvolutionClassifier.Settings.historySeconds

    static func isHeld(_ gestureSeconds: Double) -> Bool {
        gestureSeconds >= heldSeconds
    }

    /// The median length of a gesture's unbroken run of rows (neither rest nor `other`), in seconds.
    static func medianGestureSeconds(in dataset: Dataset) -> Double {
        let runs = dataset.sessions.flatMap { [LabelSpan](runsOf: $0.rows).filter { !$0.label.isBackground } }
        return runs.map { $0.to - $0.from }.median ?? 0
    }

    /// With everyday motion to learn from, the motion's statistics at their loosest limit cost the
    /// simulated crowd's left-out people no take and keep the left-out gestures from firing
    /// (`gesture-bench open-set`, docs/live.md); without it they cost takes. Held gestures' limits
    /// are set per window, and leaving `heldMotionShare` of them kept seglearn-watch's left-out
    /// people's unknown exercises from firing, at a few of their known recordings (docs/live.md).
    static func defaultMotionRejection(held: Bool, everydayMotion: Bool) -> MotionRejectionSetting {
        held ? .share(heldMotionShare) : everydayMotion ? .share(0) : .off
    }

    /// The share of a held gesture's windows the motion's limit leaves beyond it by default.
    public static let heldMotionShare = 0.3

    static func recordsEverydayMotion(_ dataset: Dataset) -> Bool {
        dataset.sessions.contains { $0.gesture == .other }
    }

    /// "chose for people the model has not seen: window 20 (0.4 s at 50 Hz), …".
    public var choicesText: String {
        "chose for people the model has not seen: \(choices.joined(separator: ", "))"
            + (choseCopies ? "; --augment none trains the quickest model" : "")
    }

    /// The book's window, in samples.
    public static let bookWindow = 20

    /// The book's 20 samples, but at most a second for gestures of a few seconds: a longer window
    /// blurs them. Held motion is not blurred, and a second of it at a low rate tells less than 20
    /// samples (basic-motions at 10 Hz, docs/training.md).
    public static func window(at rate: Double, gestureSeconds: Double) -> Int {
        isHeld(gestureSeconds) ? bookWindow : min(bookWindow, max(1, Int(rate.rounded())))
    }

    /// Each copy adds an epoch's work, so the epochs fall as copies are added, keeping training
    /// within twice `epochsWithoutCopies` epochs of the sessions alone.
    public static func epochs(copies: Int) -> Int {
        min(epochsWithoutCopies, max(1, 2 * epochsWithoutCopies / (copies + 1)))
    }

    /// The largest batch that still makes `leastSteps` steps of the epochs: a small dataset takes
    /// smaller batches, more steps for the same work.
    public static func batchSize(chunksPerEpoch: Int, epochs: Int) -> Int {
        min(largestBatch, max(smallestBatch, chunksPerEpoch * epochs / leastSteps))
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

    /// The chunks the LSTM runs over in the sessions as recorded.
    static func chunks(of dataset: Dataset, window: Int) -> Int {
        let windowing = Windowing(window: window)
        return dataset.sessions.reduce(0) { $0 + windowing.chunkCount(samples: $1.rows.count) }
    }
}

/// `--motion-rejection`: the rejection's test of the motion's statistics off, or on with the share of
/// a gesture's takes its limit may leave (of its windows, for held gestures).
public enum MotionRejectionSetting: Sendable, Equatable {
    case off
    case share(Double)

    public func calibration(perWindow: Bool) -> MotionCalibration? {
        switch self {
        case .off: nil
        case .share(let share): MotionCalibration(falseRejectRate: share, perWindow: perWindow)
        }
    }
}
