import Glibc

/// How far balancing moved each class: the logarithm of the factor its probability was
/// multiplied by before renormalizing (a shift of its logits).
public struct ClassBalance: Sendable, Equatable {
    public var logitShifts: [Double]

    public init(logitShifts: [Double]) {
        self.logitShifts = logitShifts
    }

    /// The most a class's logits move either way: a factor of 20. Where a person never makes a
    /// gesture, balancing would otherwise push that gesture without bound onto other motion.
    public static let largestShift = log(20.0)
    /// A class made this many times as likely may be missing from the sessions: on seglearn-watch,
    /// an exercise missing from a person's sessions was made 6.4–20 times as likely in 47 of 49
    /// cases, and with every exercise there no class more than 6.2 times (docs/personalization.md).
    public static let doubtfulFactor = 5.0
    static let iterations = 200
    static let tolerance = 1e-4

    /// The classes made at least `doubtfulFactor` times as likely.
    public var doubtfulClasses: [Int] { logitShifts.indices.filter { exp(logitShifts[$0]) >= Self.doubtfulFactor } }
}

extension GestureModel {
    /// This model with each class's logits shifted (the network's output bias, and the ridge's
    /// intercept with the random convolutions) so that over the windows of `sequences`, unlabeled,
    /// its mean probabilities are its training windows' class shares: for a person's sessions that
    /// hold the gestures about as the training people's did, a class the model sees too often is
    /// another one it confuses the person's with. Each shift is at most `ClassBalance.largestShift`.
    public func balancingClasses(
        over sequences: [LabeledSequence]
    ) throws(TrainingError) -> (model: GestureModel, balance: ClassBalance) {
        guard let shares = trainingRecord?.classShares else {
            throw TrainingError(
                description:
                    "the model file does not record its classes' shares of the training windows; train it again")
        }
        guard shares.count == classNames.count else {
            throw TrainingError(
                description:
                    "the model has gestures its training did not (personalised with new ones); balance the model it was made from"
            )
        }
        guard neighbours == nil else {
            throw TrainingError(description: "a model personalised by k nearest neighbours cannot be balanced")
        }
        guard randomConvolutions.map({ $0.ridge.inverseTemperature != nil }) ?? true else {
            throw TrainingError(
                description: "the model file's random convolutions give scores, not probabilities; train it again")
        }
        let unlabeled = sequences.map(\.unlabeled)
        let parts =
            [networkPredictions(unlabeled).flatMap { $0 }]
            + (randomConvolutions.map { [$0.scores(unlabeled).flatMap { $0 }] } ?? [])
        guard parts[0].count >= classNames.count else {
            throw TrainingError(description: "the sessions hold no window to balance the classes on")
        }
        let balance = ClassBalance(fitting: parts, toShares: shares, classCount: classNames.count)
        return (shiftingLogits(by: balance.logitShifts), balance)
    }

    /// This model with `shifts` added to each class's logits, in the network and in the ridge.
    func shiftingLogits(by shifts: [Double]) -> GestureModel {
        var parameters = parameters
        for (index, shift) in zip(network.layout.output.bias, shifts) { parameters[index] += Float(shift) }
        var model = replacingParameters(parameters)
        if let inverseTemperature = model.randomConvolutions?.ridge.inverseTemperature {
            for (index, shift) in shifts.enumerated() {
                model.randomConvolutions!.ridge.intercept[index] += Float(shift) / inverseTemperature
            }
        }
        return model
    }
}

extension ClassBalance {
    /// The shifts that make the mean over windows of `parts`' averaged probabilities (each part
    /// `windows × classCount`, a probability row a window) the `shares`: a damped fixed point
    /// of multiplying each class by its share over its mean.
    init(fitting parts: [[Float]], toShares shares: [Double], classCount: Int) {
        var shifts = [Double](repeating: 0, count: classCount)
        for _ in 0..<Self.iterations {
            let means = Self.meanProbabilities(parts, shifts: shifts, classCount: classCount)
            var largestStep = 0.0
            for label in 0..<classCount {
                let step = log(max(shares[label], 1e-6) / max(means[label], 1e-12)) / 2
                let shifted = min(max(shifts[label] + step, -Self.largestShift), Self.largestShift)
                largestStep = max(largestStep, abs(shifted - shifts[label]))
                shifts[label] = shifted
            }
            if largestStep < Self.tolerance { break }
        }
        logitShifts = shifts
    }

    /// Each class's mean probability over the windows, each part's rows shifted and renormalized
    /// and the parts averaged.
    static func meanProbabilities(_ parts: [[Float]], shifts: [Double], classCount: Int) -> [Double] {
        let factors = shifts.map(exp)
        var sums = [Double](repeating: 0, count: classCount)
        var row = [Double](repeating: 0, count: classCount)
        for part in parts {
            for start in stride(from: 0, to: part.count, by: classCount) {
                var total = 0.0
                for label in 0..<classCount {
                    row[label] = Double(part[start + label]) * factors[label]
                    total += row[label]
                }
                guard total > 0 else { continue }
                for label in 0..<classCount { sums[label] += row[label] / total }
            }
        }
        let windows = Double(parts[0].count / classCount * parts.count)
        return sums.map { $0 / windows }
    }
}
