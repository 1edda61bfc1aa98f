extension GestureModel {
    /// This model with batch norm's running statistics re-estimated on the windows of `sequences`,
    /// their labels ignored (AdaBN): the mean and variance of dense's output over every window,
    /// blended with the trained ones by `weight` (1 keeps only the new ones), so that the layers
    /// after it see a new person's activations standardized as training's were. The random
    /// convolutions' statistics, of their inputs and of their features, are re-estimated alike.
    /// Every other parameter and the rejection stay as they were.
    public func adaptingNormalization(
        to sequences: [LabeledSequence], weight: Float = 1
    ) throws(TrainingError) -> GestureModel {
        precondition((0...1).contains(weight), "the new statistics' weight is from 0 to 1")
        guard neighbours == nil else {
            throw TrainingError(
                description:
                    "the model is personalised by k nearest neighbours, whose prototypes hold the trained statistics; adapt the model it was made from"
            )
        }
        let statistics = denseStatistics(of: sequences)
        guard statistics.windows > 0 else {
            throw TrainingError(description: "the sessions hold no window to adapt on")
        }
        let ranges = network.layout.batchNorm
        var adapted = parameters
        for unit in 0..<architecture.denseUnits {
            let mean = ranges.runningMean.lowerBound + unit, variance = ranges.runningVariance.lowerBound + unit
            adapted[mean] = (1 - weight) * adapted[mean] + weight * statistics.mean[unit]
            adapted[variance] = (1 - weight) * adapted[variance] + weight * statistics.variance[unit]
        }
        var model = replacingParameters(adapted)
        model.randomConvolutions = randomConvolutions?.adaptingStatistics(to: sequences, weight: weight)
        return model
    }

    /// The mean and (biased, as a training batch's) variance of dense's output, before batch norm,
    /// over every window of `sequences`, and how many windows there were.
    func denseStatistics(of sequences: [LabeledSequence]) -> (mean: [Float], variance: [Float], windows: Int) {
        let chunks = ChunkSet(
            sequences.map(\.unlabeled), windowing: windowing, classCount: 1, normalization: normalization)
        let width = architecture.denseUnits
        let rows = chunks.inferenceRows(network, parameters: parameters, batchSize: 32, width: width, through: .dense) {
            workspace, row, into in
            into.update(from: workspace.dense + row * width, count: width)
        }
        let real = chunks.lossWeights.indices.filter { chunks.lossWeights[$0] > 0 }
        let statistics = ColumnStatistics(real.map { rows[$0 * width..<($0 + 1) * width] }, width: width)
        return (statistics.mean.map { Float($0) }, statistics.variance.map { Float($0) }, statistics.rows)
    }
}

extension LabeledSequence {
    /// This sequence with every sample labeled 0: its windows, for a model to run over whatever
    /// classes the labels were of.
    var unlabeled: LabeledSequence {
        var sequence = self
        sequence.labels = Array(repeating: 0, count: sampleCount)
        return sequence
    }
}
