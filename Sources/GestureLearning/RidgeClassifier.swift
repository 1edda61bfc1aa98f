import COpenBLAS
import Glibc

/// A linear classifier fitted by ridge regression onto each class's indicator, as MiniRocket's:
/// each feature standardized on the training data, the intercept not penalized. Its scores are
/// turned into probabilities by a softmax whose temperature is fitted on windows each scored by a
/// fit without their group (their person), so that they are as sure as they are right on new people.
public struct RidgeClassifier: Sendable, Equatable {
    public let classCount: Int
    public internal(set) var standardization: FeatureNormalization
    /// `featureCount × classCount`, row-major, on the standardized features.
    public internal(set) var weights: [Float]
    public internal(set) var intercept: [Float]
    /// What the scores are multiplied by before the softmax; nil in model files from before the
    /// scores were calibrated, whose scores are the regression's own.
    public internal(set) var inverseTemperature: Float?

    public var featureCount: Int { standardization.featureCount }

    /// Fits `rows × featureCount` examples (row-major) to their labels, the penalty `penalty` times
    /// the rows (each standardized feature's sum of squares), so that it means the same for any count.
    /// The softmax's temperature is fitted on each of the `groups` scored by a fit on the others
    /// (on the examples themselves when there is one group or such a fit fails). The groups' sums
    /// and held-out fits are shared among `team`'s threads.
    /// `features` are standardized where they lie: a caller that passes its last use of them
    /// (`consume`) spares a copy of them all.
    init(
        features: consuming [Float], featureCount: Int, labels: [Int], groups: [Int], classCount: Int,
        penalty: Float, team: ThreadTeam? = nil
    ) throws(RidgeError) {
        let rows = labels.count
        precondition(features.count == rows * featureCount && groups.count == rows && rows > 0 && penalty > 0)
        self.classCount = classCount
        let standardization = FeatureNormalization(fitting: ColumnStatistics([copy features], width: featureCount))
        self.standardization = standardization
        features.withUnsafeMutableBufferPointer { standardization.apply(to: $0) }
        let standardized = features
        intercept = (0..<classCount).map { label in Float(labels.count { $0 == label }) / Float(rows) }
        let targets = Self.centredIndicators(labels, prior: intercept)
        // Each group's sums, added up, are the whole's: the held-out fits cost no second pass.
        let members = Dictionary(grouping: groups.indices) { groups[$0] }.sorted { $0.key < $1.key }.map(\.value)
        let parts =
            members.count > 1
            ? shared(members, team: team, work: rows * featureCount * featureCount) { rows in
                NormalEquations(
                    rows: gathered(standardized, rows, width: featureCount),
                    targets: gathered(targets, rows, width: classCount), featureCount: featureCount)
            } : []
        let equations =
            parts.isEmpty
            ? NormalEquations(rows: standardized, targets: targets, featureCount: featureCount)
            : NormalEquations(summing: parts)
        weights = try equations.solved(penalty: penalty)
        // A fit on the other groups that fails (a few rows beside many) leaves the examples' own scores.
        let heldOut =
            parts.isEmpty
            ? nil
            : try? equations.heldOutScores(
                of: Array(zip(members, parts)), rows: standardized, penalty: penalty, intercept: intercept, team: team)
        let fitted = heldOut ?? linearScores(standardized, weights: weights, intercept: intercept)
        inverseTemperature = SoftmaxTemperature.fittedScale(scores: fitted, labels: labels, classCount: classCount)
    }

    init(
        classCount: Int, standardization: FeatureNormalization, weights: [Float], intercept: [Float],
        inverseTemperature: Float?
    ) {
        self.classCount = classCount
        self.standardization = standardization
        self.weights = weights
        self.intercept = intercept
        self.inverseTemperature = inverseTemperature
    }

    /// Each row's class probabilities (`rows × classCount`), or the regression's scores for a
    /// classifier without a temperature.
    public func scores(of features: [Float]) -> [Float] {
        var scores = linearScores(standardization.applied(to: features), weights: weights, intercept: intercept)
        if let inverseTemperature {
            SoftmaxTemperature.softmax(&scores, classCount: classCount, scale: inverseTemperature)
        }
        return scores
    }

    /// Each label's indicator of its class less the class's share of the labels (`labels × classes`).
    private static func centredIndicators(_ labels: [Int], prior: [Float]) -> [Float] {
        let classCount = prior.count
        var targets = [Float](repeating: 0, count: labels.count * classCount)
        for (row, label) in labels.enumerated() {
            for column in 0..<classCount {
                targets[row * classCount + column] = (label == column ? 1 : 0) - prior[column]
            }
        }
        return targets
    }
}

/// The ridge regression's sums: the standardized features' Gram matrix and their products with the
/// centred targets, over the rows they were made from.
private struct NormalEquations {
    let featureCount: Int
    let classCount: Int
    var rows: Int
    /// `featureCount × featureCount`, its upper triangle row-major.
    var gram: [Float]
    /// `classCount × featureCount`: each class's targets times the features.
    var moments: [Float]

    init(rows standardized: [Float], targets: [Float], featureCount: Int) {
        self.featureCount = featureCount
        rows = standardized.count / featureCount
        classCount = targets.count / max(rows, 1)
        gram = [Float](repeating: 0, count: featureCount * featureCount)
        gl_openblas_gram(Int32(rows), Int32(featureCount), standardized, &gram)
        moments = [Float](repeating: 0, count: classCount * featureCount)
        gemm(classCount, featureCount, rows, targets, transposeA: true, standardized, &moments)
    }

    /// The weights (`featureCount × classCount`, row-major) with the penalty `penalty` times the rows.
    func solved(penalty: Float) throws(RidgeError) -> [Float] {
        var gram = gram
        for feature in 0..<featureCount { gram[feature * featureCount + feature] += penalty * Float(rows) }
        // sposv takes each right-hand side's values in turn: the classes' columns, transposed.
        var solution = moments
        let info = gl_openblas_sposv(Int32(featureCount), Int32(classCount), &gram, &solution)
        guard info == 0 else { throw RidgeError(failedColumn: Int(info)) }
        var weights = [Float](repeating: 0, count: featureCount * classCount)
        for feature in 0..<featureCount {
            for label in 0..<classCount {
                weights[feature * classCount + label] = solution[label * featureCount + feature]
            }
        }
        return weights
    }

    /// The sums over all the rows of `parts`.
    init(summing parts: [NormalEquations]) {
        self = parts[0]
        for part in parts.dropFirst() {
            rows += part.rows
            for index in gram.indices { gram[index] += part.gram[index] }
            for index in moments.indices { moments[index] += part.moments[index] }
        }
    }

    /// Each row's scores by the fit on the other groups' rows, each group given as its rows and
    /// their sums.
    func heldOutScores(
        of groups: [(rows: [Int], equations: NormalEquations)], rows standardized: [Float], penalty: Float,
        intercept: [Float], team: ThreadTeam?
    ) throws(RidgeError) -> [Float] {
        let fits = shared(groups, team: team, work: groups.count * featureCount * featureCount * featureCount) {
            group -> Result<[Float], RidgeError> in
            Result { () throws(RidgeError) in
                linearScores(
                    gathered(standardized, group.rows, width: featureCount),
                    weights: try without(group.equations).solved(penalty: penalty), intercept: intercept)
            }
        }
        var scores = [Float](repeating: 0, count: standardized.count / featureCount * classCount)
        for (group, fit) in zip(groups, fits) {
            let groupScores = try fit.get()
            for (index, row) in group.rows.enumerated() {
                scores.replaceSubrange(
                    row * classCount..<(row + 1) * classCount,
                    with: groupScores[index * classCount..<(index + 1) * classCount])
            }
        }
        return scores
    }

    private func without(_ part: NormalEquations) -> NormalEquations {
        var rest = self
        rest.rows -= part.rows
        for index in gram.indices { rest.gram[index] -= part.gram[index] }
        for index in moments.indices { rest.moments[index] -= part.moments[index] }
        return rest
    }
}

/// The regression's scores of standardized rows (`rows × intercept.count`): the intercept plus the
/// weighted features.
private func linearScores(_ standardized: [Float], weights: [Float], intercept: [Float]) -> [Float] {
    let classCount = intercept.count, featureCount = weights.count / classCount
    let rows = standardized.count / featureCount
    var scores = [Float](repeating: 0, count: rows * classCount)
    for row in 0..<rows { scores.replaceSubrange(row * classCount..<(row + 1) * classCount, with: intercept) }
    gemm(rows, classCount, featureCount, standardized, weights, &scores, beta: 1)
    return scores
}

/// `transform` of each of `elements`, in order, the elements shared among `team`'s threads when
/// `work` is worth it.
private func shared<Element, Transformed>(
    _ elements: [Element], team: ThreadTeam?, work: Int, _ transform: (Element) -> Transformed
) -> [Transformed] {
    [Transformed](unsafeUninitializedCapacity: elements.count) { results, count in
        ThreadTeam.split(team, work: work, elements.count) { range in
            for index in range { (results.baseAddress! + index).initialize(to: transform(elements[index])) }
        }
        count = elements.count
    }
}

/// The rows `indices` of `values`, `width` values a row.
private func gathered(_ values: [Float], _ indices: [Int], width: Int) -> [Float] {
    var result: [Float] = []
    result.reserveCapacity(indices.count * width)
    for row in indices { result += values[row * width..<(row + 1) * width] }
    return result
}

/// The regularized normal equations were not positive definite.
public struct RidgeError: Error, Sendable, Equatable {
    public var failedColumn: Int
}
