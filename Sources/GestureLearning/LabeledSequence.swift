import GestureCore

/// One recorded session as the learning module sees it: a matrix of features, one row per sample,
/// and the class of every sample.
public struct LabeledSequence: Sendable, Equatable {
    public var session: SessionID
    public var user: UserID
    /// The recorded session this one is an augmented copy of; nil for a recording.
    public var copyOf: SessionID?
    public var featureCount: Int
    /// `sampleCount × featureCount` values, row-major: sample 0's features, then sample 1's, …
    public var features: [Float]
    /// Each sample's class, an index into the model's class names.
    public var labels: [Int]

    public init(
        session: SessionID, user: UserID, copyOf: SessionID? = nil, featureCount: Int, features: [Float],
        labels: [Int]
    ) {
        precondition(
            featureCount > 0 && features.count == labels.count * featureCount,
            "\(features.count) feature values are not \(labels.count) samples × \(featureCount) features")
        self.session = session
        self.user = user
        self.copyOf = copyOf
        self.featureCount = featureCount
        self.features = features
        self.labels = labels
    }

    public var sampleCount: Int { labels.count }

    /// The session as recorded: this one, or the one it is a copy of.
    public var recordedSession: SessionID { copyOf ?? session }
}

/// Per-feature mean and standard deviation, fitted on training data and applied to every input.
public struct FeatureNormalization: Sendable, Equatable {
    public var mean: [Float]
    public var deviation: [Float]

    public init(mean: [Float], deviation: [Float]) {
        precondition(mean.count == deviation.count)
        self.mean = mean
        self.deviation = deviation
    }

    /// Fits the statistics of every sample of `sequences`. A constant feature gets deviation 1, so
    /// it becomes 0 rather than NaN.
    public init(fitting sequences: [LabeledSequence]) {
        let featureCount = sequences.first?.featureCount ?? 0
        var sum = [Double](repeating: 0, count: featureCount)
        var sumOfSquares = sum
        var count = 0
        for sequence in sequences {
            precondition(sequence.featureCount == featureCount)
            for (index, value) in sequence.features.enumerated() {
                sum[index % featureCount] += Double(value)
            }
            count += sequence.sampleCount
        }
        let mean = sum.map { $0 / Double(max(count, 1)) }
        for sequence in sequences {
            for (index, value) in sequence.features.enumerated() {
                let difference = Double(value) - mean[index % featureCount]
                sumOfSquares[index % featureCount] += difference * difference
            }
        }
        let deviation = sumOfSquares.map { sum -> Float in
            let value = Float((sum / Double(max(count, 1))).squareRoot())
            return value > 1e-6 ? value : 1
        }
        self.init(mean: mean.map(Float.init), deviation: deviation)
    }

    public var featureCount: Int { mean.count }

    /// Standardizes `features` (rows of `featureCount` values) in place.
    func apply(to features: UnsafeMutableBufferPointer<Float>) {
        for index in features.indices {
            let feature = index % featureCount
            features[index] = (features[index] - mean[feature]) / deviation[feature]
        }
    }
}
