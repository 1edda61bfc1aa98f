/// MiniRocket as a gesture classifier: each window is classified by the random convolutions'
/// features of the samples up to its end (`RandomConvolutions.history` of them), through a ridge
/// classifier.
public struct RandomConvolutionClassifier: Sendable, Equatable {
    public struct Settings: Sendable, Equatable {
        /// The settings chosen by leaving each subject out (docs/training.md): four seconds of
        /// history, about 2,016 features, a penalty of 0.01.
        public static let historySeconds = 4.0
        public static let outputCount = 2_016
        public static let penalty: Float = 0.01

        /// Samples each window's features look back over.
        public var history: Int
        public var outputCount: Int
        public var penalty: Float

        public init(history: Int, outputCount: Int = Self.outputCount, penalty: Float = Self.penalty) {
            self.history = history
            self.outputCount = outputCount
            self.penalty = penalty
        }

        /// `seconds` of history at `rate` Hz.
        public init(
            seconds: Double = Self.historySeconds, rate: Double, outputCount: Int = Self.outputCount,
            penalty: Float = Self.penalty
        ) {
            self.init(history: Int((seconds * rate).rounded()), outputCount: outputCount, penalty: penalty)
        }
    }

    public let classNames: [String]
    public let windowing: Windowing
    public let normalization: FeatureNormalization
    public let convolutions: RandomConvolutions
    public internal(set) var ridge: RidgeClassifier

    /// Fitted on `training`, its windows' features and its ridge's sums made on `threads` threads (the
    /// same values on any number).
    public init(
        training: [LabeledSequence], classNames: [String], windowing: Windowing, settings: Settings, seed: UInt64,
        threads: Int = 1
    ) throws(RidgeError) {
        self.classNames = classNames
        self.windowing = windowing
        let normalization = FeatureNormalization(fitting: training)
        let convolutions = RandomConvolutions(
            fitting: training.lazy.map { normalization.applied(to: $0.features) },
            channelCount: normalization.featureCount, history: settings.history, outputCount: settings.outputCount,
            seed: seed)
        let team = threads > 1 ? ThreadTeam(threads: threads) : nil
        let features = convolutions.windowFeatures(
            of: training, normalizedBy: normalization, window: windowing.window, team: team)
        let windowLabels = training.map { windowing.windowLabels($0.labels, classCount: classNames.count) }
        let groups = zip(Self.calibrationGroups(training), windowLabels).flatMap { group, labels in
            [Int](repeating: group, count: labels.count)
        }
        ridge = try RidgeClassifier(
            features: consume features, featureCount: convolutions.outputCount, labels: windowLabels.flatMap { $0 },
            groups: groups, classCount: classNames.count, penalty: settings.penalty, team: team)
        self.normalization = normalization
        self.convolutions = convolutions
    }

    init(
        classNames: [String], windowing: Windowing, normalization: FeatureNormalization,
        convolutions: RandomConvolutions, ridge: RidgeClassifier
    ) {
        self.classNames = classNames
        self.windowing = windowing
        self.normalization = normalization
        self.convolutions = convolutions
        self.ridge = ridge
    }

    /// Each sequence's group for calibrating the ridge's scores on windows it was not fitted on: its
    /// person, or with one person, one of up to five groups of recorded sessions, a copy in its recording's.
    static func calibrationGroups(_ sequences: [LabeledSequence]) -> [Int] {
        let users = Array(Set(sequences.map(\.user))).sorted()
        if users.count > 1 { return sequences.map { users.firstIndex(of: $0.user)! } }
        let sessions = Array(Set(sequences.map(\.recordedSession))).sorted()
        return sequences.map { sessions.firstIndex(of: $0.recordedSession)! % 5 }
    }

    /// Each window's class probabilities for each sequence (`windowCount × classes`, row-major); for
    /// a classifier from before calibration, a regression onto each class's indicator, summing to 1 but
    /// not bounded by 0 and 1.
    public func scores(_ sequences: [LabeledSequence]) -> [[Float]] {
        sequences.map { sequence in
            ridge.scores(
                of: convolutions.windowFeatures(
                    of: normalization.applied(to: sequence.features), window: windowing.window))
        }
    }

    /// This classifier with its inputs normalized and its ridge's features standardized as the
    /// windows of `sequences` are (their labels ignored), blended with the trained statistics by
    /// `weight`: batch norm's adaptation (`GestureModel.adaptingNormalization`) for the random convolutions.
    func adaptingStatistics(to sequences: [LabeledSequence], weight: Float) -> RandomConvolutionClassifier {
        let inputs = normalization.blended(with: FeatureNormalization(fitting: sequences), weight: weight)
        let features = convolutions.windowFeatures(
            of: sequences, normalizedBy: inputs, window: windowing.window, team: nil)
        var ridge = ridge
        ridge.standardization = ridge.standardization.blended(
            with: FeatureNormalization(fitting: ColumnStatistics([features], width: convolutions.outputCount)),
            weight: weight)
        return RandomConvolutionClassifier(
            classNames: classNames, windowing: windowing, normalization: inputs, convolutions: convolutions,
            ridge: ridge)
    }

    /// The class scores of the window `samples` (raw features, `window × featureCount`) ends, which
    /// it adds to `recent`: the stream's last `history` samples as read, so that a classifier
    /// adapted on the way normalizes them its own way.
    func scores(ofWindow samples: [Float], recent: inout [Float]) -> [Float] {
        let channels = normalization.featureCount
        recent += samples
        let kept = min(recent.count, convolutions.history * channels)
        recent.removeFirst(recent.count - kept)
        return ridge.scores(
            of: convolutions.windowFeatures(of: normalization.applied(to: recent), window: kept / channels))
    }

    /// The mean of `probabilities` and `scores`, element by element: the two together.
    static func averaged(_ probabilities: [Float], _ scores: [Float]) -> [Float] {
        zip(probabilities, scores).map { ($0 + $1) / 2 }
    }
}

extension Evaluation {
    /// Scores the classifier's predictions, as `init(model:sequences:)` scores a model's; with a
    /// `model` of the same classes and windows, each window's class scores are the mean of the two's.
    public init(
        classifier: RandomConvolutionClassifier, alongside model: GestureModel? = nil, sequences: [LabeledSequence]
    ) {
        let scores = classifier.scores(sequences)
        let combined =
            model.map { model in
                precondition(model.classNames == classifier.classNames && model.windowing == classifier.windowing)
                return zip(model.predict(sequences), scores).map(RandomConvolutionClassifier.averaged)
            } ?? scores
        self.init(
            classNames: classifier.classNames, windowing: classifier.windowing, sequences: sequences, scores: combined)
    }

    /// Scores each window's most likely class by `scores` (`windowCount × classes` for each sequence).
    public init(classNames: [String], windowing: Windowing, sequences: [LabeledSequence], scores: [[Float]]) {
        let classCount = classNames.count
        let targets = sequences.map { windowing.windowLabels($0.labels, classCount: classCount) }
        let predictions = scores.map { scores in
            stride(from: 0, to: scores.count, by: classCount).map { argmax(scores[$0..<$0 + classCount]) }
        }
        self.init(classNames: classNames, sequences: sequences, targets: targets, predictions: predictions)
    }
}
