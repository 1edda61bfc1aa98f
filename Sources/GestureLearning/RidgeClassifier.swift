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
        let intercept = (0..<classCount).map { label in Float(labels.count { $0 == label }) / Float(rows) }
        self.intercept = intercept
        let targets = Self.centredIndicators(labels, prior: intercept)
        // Each group's sums, added up, are the whole's: the held-out fits cost no second pass.
        // Its rows are read where they lie, run by run.
        let members = Dictionary(grouping: groups.indices) { groups[$0] }.sorted { $0.key < $1.key }
            .map { consecutiveRuns($0.value) }
        let (weights, fitted) = try standardized.withUnsafeBufferPointer { standardized throws(RidgeError) in
            try targets.withUnsafeBufferPointer { targets throws(RidgeError) in
                let sums = { (runs: [Range<Int>]) in
                    NormalEquations(
                        runs: runs, of: standardized.baseAddress!, targets: targets.baseAddress!,
                        featureCount: featureCount, classCount: classCount)
                }
                let parts =
                    members.count > 1 ? shared(members, team: team, work: rows * featureCount * featureCount, sums) : []
                let equations = parts.isEmpty ? sums([0..<rows]) : NormalEquations(summing: parts)
                let weights = try equations.solved(penalty: penalty)
                // A fit on the other groups that fails (a few rows beside many) leaves the examples' own scores.
                let heldOut =
                    parts.isEmpty
                    ? nil
                    : try? equations.heldOutScores(
                        of: Array(zip(members, parts)), rows: standardized.baseAddress!, penalty: penalty,
                        intercept: intercept, team: team)
                let fitted =
                    heldOut
                    ?? linearScores(
                        standardized.baseAddress!, rows: 0..<rows, weights: weights, intercept: intercept)
                return (weights, fitted)
            }
        }
        self.weights = weights
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
        let standardized = standardization.applied(to: features)
        var scores = linearScores(
            standardized, rows: 0..<standardized.count / featureCount, weights: weights, intercept: intercept)
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

    /// The sums over `runs` of the rows of `standardized` (`featureCount` values a row) and of
    /// `targets` (`classCount` a row), read where they lie.
    init(
        runs: [Range<Int>], of standardized: UnsafePointer<Float>, targets: UnsafePointer<Float>, featureCount: Int,
        classCount: Int
    ) {
        self.featureCount = featureCount
        self.classCount = classCount
        rows = runs.reduce(0) { $0 + $1.count }
        gram = [Float](repeating: 0, count: featureCount * featureCount)
        moments = [Float](repeating: 0, count: classCount * featureCount)
        for run in runs {
            let first = standardized + run.lowerBound * featureCount
            gl_openblas_gram(Int32(run.count), Int32(featureCount), first, 1, &gram)
            gemm(
                classCount, featureCount, run.count, targets + run.lowerBound * classCount, transposeA: true, first,
                &moments, beta: 1)
        }
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

    /// Each row's scores by the fit on the other groups' rows, each group given as its runs of rows
    /// and their sums; the fits shared among `team`'s threads.
    func heldOutScores(
        of groups: [(runs: [Range<Int>], equations: NormalEquations)], rows standardized: UnsafePointer<Float>,
        penalty: Float, intercept: [Float], team: ThreadTeam?
    ) throws(RidgeError) -> [Float] {
        let fits = shared(groups, team: team, work: groups.count * featureCount * featureCount * featureCount) {
            group -> Result<[Float], RidgeError> in
            Result { () throws(RidgeError) in try without(group.equations).solved(penalty: penalty) }
        }
        var scores = [Float](repeating: 0, count: rows * classCount)
        for (group, fit) in zip(groups, fits) {
            let weights = try fit.get()
            for run in group.runs {
                scores.replaceSubrange(
                    run.lowerBound * classCount..<run.upperBound * classCount,
                    with: linearScores(standardized, rows: run, weights: weights, intercept: intercept))
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

/// The regression's scores of the standardized rows `rows` (`rows.count × intercept.count`): the
/// intercept plus the weighted features.
private func linearScores(
    _ standardized: UnsafePointer<Float>, rows: Range<Int>, weights: [Float], intercept: [Float]
) -> [Float] {
    let classCount = intercept.count, featureCount = weights.count / classCount
    var scores = [Float](repeating: 0, count: rows.count * classCount)
    for row in 0..<rows.count { scores.replaceSubrange(row * classCount..<(row + 1) * classCount, with: intercept) }
    gemm(
        rows.count, classCount, featureCount, standardized + rows.lowerBound * featureCount, weights, &scores,
        beta: 1)
    return scores
}

/// `rows` (ascending) as runs of consecutive rows.
private func consecutiveRuns(_ rows: [Int]) -> [Range<Int>] {
    rows.reduce(into: []) { runs, row in
        if let last = runs.last, last.upperBound == row {
            runs[runs.count - 1] = last.lowerBound..<row + 1
        } else {
            runs.append(row..<row + 1)
        }
    }
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

/// The regularized normal equations were not positive definite.
public struct RidgeError: Error, Sendable, Equatable {
    public var failedColumn: Int
}
