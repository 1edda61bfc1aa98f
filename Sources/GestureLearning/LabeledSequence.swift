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
        precondition(sequences.allSatisfy { $0.featureCount == featureCount })
        self.init(fitting: ColumnStatistics(sequences.map(\.features), width: featureCount))
    }

    /// Standardizes with `statistics`' means and deviations, a constant column's deviation 1.
    init(fitting statistics: ColumnStatistics) {
        let deviation = statistics.variance.map { variance -> Float in
            let value = Float(variance.squareRoot())
            return value > 1e-6 ? value : 1
        }
        self.init(mean: statistics.mean.map(Float.init), deviation: deviation)
    }

    public var featureCount: Int { mean.count }

    /// These statistics moved `weight` of the way to `other`'s: the means and the variances
    /// blended, as batch norm's adaptation blends its running statistics.
    func blended(with other: FeatureNormalization, weight: Float) -> FeatureNormalization {
        if weight <= 0 { return self }
        if weight >= 1 { return other }
        return FeatureNormalization(
            mean: zip(mean, other.mean).map { (1 - weight) * $0 + weight * $1 },
            deviation: zip(deviation, other.deviation).map { ((1 - weight) * $0 * $0 + weight * $1 * $1).squareRoot() })
    }

    /// `features` (rows of `featureCount` values) standardized.
    func applied(to features: [Float]) -> [Float] {
        var result = features
        result.withUnsafeMutableBufferPointer { apply(to: $0) }
        return result
    }

    /// Standardizes `features` (rows of `featureCount` values) in place.
    func apply(to features: UnsafeMutableBufferPointer<Float>) {
        let width = featureCount
        guard !features.isEmpty else { return }
        precondition(features.count % width == 0, "\(features.count) values are not rows of \(width)")
        mean.withUnsafeBufferPointer { mean in
            deviation.withUnsafeBufferPointer { deviation in
                for row in stride(from: 0, to: features.count, by: width) {
                    for feature in 0..<width {
                        features[row + feature] = (features[row + feature] - mean[feature]) / deviation[feature]
                    }
                }
            }
        }
    }
}

/// Each column's mean and (biased) variance over rows of `width` values, summed in Double in two
/// passes.
struct ColumnStatistics {
    var mean: [Double]
    var variance: [Double]
    var rows: Int

    /// - Parameter blocks: runs of whole rows, `width` values each, row-major.
    init<Block: Collection<Float>>(_ blocks: [Block], width: Int) {
        var sum = [Double](repeating: 0, count: width)
        var sumOfSquares = sum
        let rows = blocks.reduce(0) { $0 + $1.count } / max(width, 1)
        Self.addRows(of: blocks, width: width, into: &sum) { value, _ in value }
        let mean = sum.map { $0 / Double(max(rows, 1)) }
        Self.addRows(of: blocks, width: width, into: &sumOfSquares) { value, column in
            let difference = value - mean[column]
            return difference * difference
        }
        self.mean = mean
        variance = sumOfSquares.map { $0 / Double(max(rows, 1)) }
        self.rows = rows
    }

    /// Adds `term(value, column)` of every value to `sums[column]`, row after row: a row's columns
    /// in one loop, which runs in vectors.
    private static func addRows<Block: Collection<Float>>(
        of blocks: [Block], width: Int, into sums: inout [Double], _ term: (Double, Int) -> Double
    ) {
        sums.withUnsafeMutableBufferPointer { sums in
            for block in blocks {
                let contiguous: Void? = block.withContiguousStorageIfAvailable { values in
                    for row in stride(from: 0, to: values.count, by: width) {
                        for column in 0..<width { sums[column] += term(Double(values[row + column]), column) }
                    }
                }
                guard contiguous == nil else { continue }
                for (index, value) in block.enumerated() { sums[index % width] += term(Double(value), index % width) }
            }
        }
    }
}
