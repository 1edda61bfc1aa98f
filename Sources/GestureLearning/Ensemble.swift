/// Models trained alike from different seeds, predicting together: each window's probabilities are
/// the mean of theirs.
public struct Ensemble: Sendable, Equatable {
    public let models: [GestureModel]

    public init(_ models: [GestureModel]) {
        precondition(
            !models.isEmpty
                && models.allSatisfy {
                    $0.classNames == models[0].classNames && $0.windowing == models[0].windowing
                        && $0.featureNames == models[0].featureNames
                })
        self.models = models
    }

    /// As `GestureModel.predict`: each window's mean class probabilities for each sequence.
    public func predict(_ sequences: [LabeledSequence]) -> [[Float]] {
        meanPredictions(models.map { $0.predict(sequences) })
    }
}

/// Each sequence's window probabilities averaged over `each` (one `predict` result apiece, of the
/// same sequences' windows).
public func meanPredictions(_ each: [[[Float]]]) -> [[Float]] {
    let scale = 1 / Float(each.count)
    return each[0].indices.map { index in
        each.dropFirst().reduce(each[0][index]) { sum, predictions in zip(sum, predictions[index]).map(+) }
            .map { $0 * scale }
    }
}

extension Evaluation {
    /// Scores the ensemble's predictions, as `init(model:sequences:)` scores one model's.
    public init(ensemble: Ensemble, sequences: [LabeledSequence]) {
        let model = ensemble.models[0]
        self.init(
            classNames: model.classNames, windowing: model.windowing, sequences: sequences,
            scores: ensemble.predict(sequences))
    }
}
