import COpenBLAS

/// A linear classifier fitted by ridge regression onto each class's indicator, as MiniRocket's:
/// each feature standardized on the training data, the intercept not penalized.
public struct RidgeClassifier: Sendable, Equatable {
    public let classCount: Int
    public let standardization: FeatureNormalization
    /// `featureCount × classCount`, row-major, on the standardized features.
    public internal(set) var weights: [Float]
    public internal(set) var intercept: [Float]

    public var featureCount: Int { standardization.featureCount }

    /// Fits `rows × featureCount` examples (row-major) to their labels, the penalty `penalty` times
    /// the rows (each standardized feature's sum of squares), so that it means the same for any count.
    public init(
        features: [Float], featureCount: Int, labels: [Int], classCount: Int, penalty: Float
    ) throws(RidgeError) {
        let rows = labels.count
        precondition(features.count == rows * featureCount && rows > 0 && penalty > 0)
        self.classCount = classCount
        standardization = FeatureNormalization(fitting: ColumnStatistics([features], width: featureCount))
        let standardized = standardization.applied(to: features)
        let prior = (0..<classCount).map { label in Float(labels.count { $0 == label }) / Float(rows) }
        intercept = prior
        var targets = [Float](repeating: 0, count: rows * classCount)
        for (row, label) in labels.enumerated() {
            for column in 0..<classCount {
                targets[row * classCount + column] = (label == column ? 1 : 0) - prior[column]
            }
        }
        var gram = [Float](repeating: 0, count: featureCount * featureCount)
        gl_openblas_gram(Int32(rows), Int32(featureCount), standardized, &gram)
        for feature in 0..<featureCount { gram[feature * featureCount + feature] += penalty * Float(rows) }
        // sposv takes each right-hand side's values in turn: the classes' columns, transposed.
        var solution = [Float](repeating: 0, count: classCount * featureCount)
        gemm(classCount, featureCount, rows, targets, transposeA: true, standardized, &solution)
        let info = gl_openblas_sposv(Int32(featureCount), Int32(classCount), &gram, &solution)
        guard info == 0 else { throw RidgeError(failedColumn: Int(info)) }
        weights = [Float](repeating: 0, count: featureCount * classCount)
        for feature in 0..<featureCount {
            for label in 0..<classCount {
                weights[feature * classCount + label] = solution[label * featureCount + feature]
            }
        }
    }

    init(classCount: Int, standardization: FeatureNormalization, weights: [Float], intercept: [Float]) {
        self.classCount = classCount
        self.standardization = standardization
        self.weights = weights
        self.intercept = intercept
    }

    /// Each row's class scores (`rows × classCount`).
    public func scores(of features: [Float]) -> [Float] {
        let rows = features.count / featureCount
        let standardized = standardization.applied(to: features)
        var scores = [Float](repeating: 0, count: rows * classCount)
        for row in 0..<rows { scores.replaceSubrange(row * classCount..<(row + 1) * classCount, with: intercept) }
        gemm(rows, classCount, featureCount, standardized, weights, &scores, beta: 1)
        return scores
    }
}

/// The regularized normal equations were not positive definite.
public struct RidgeError: Error, Sendable, Equatable {
    public var failedColumn: Int
}
