/// Where each layer's parameters sit in the network's one flat parameter vector: the trainable
/// parameters first, layer by layer in the order a window goes through them (Adam updates that
/// prefix), then batch norm's running statistics. Model files store the vector in this order.
struct ParameterLayout {
    /// An affine layer's `inputs × outputs` weight matrix, row-major, then its bias.
    struct AffineRanges {
        let weight: Range<Int>
        let bias: Range<Int>
    }

    /// The LSTM's input weights (`inputs × 4·units`) and recurrent weights (`units × 4·units`),
    /// both row-major, then its bias of 4·units.
    struct LSTMRanges {
        let input: Range<Int>
        let recurrent: Range<Int>
        let bias: Range<Int>

        /// The input weights with the recurrent ones right after them: one `(inputs + units) × 4·units`
        /// matrix, for one product of the input and the hidden state side by side.
        var weights: Range<Int> { input.lowerBound..<recurrent.upperBound }
    }

    /// Batch norm's trainable scale and shift, and the running statistics it normalizes with at
    /// inference, which sit apart, after every trainable parameter.
    struct BatchNormRanges {
        let scale: Range<Int>
        let shift: Range<Int>
        let runningMean: Range<Int>
        let runningVariance: Range<Int>
    }

    let temporal: [AffineRanges]
    let convolution: AffineRanges
    let lstm: LSTMRanges
    let dense: AffineRanges
    let batchNorm: BatchNormRanges
    let output: AffineRanges
    /// The trainable parameters are `0..<trainableCount`.
    let trainableCount: Int
    let parameterCount: Int

    init(temporal: [Affine], convolution: Affine, lstm: LSTM, dense: Affine, batchNorm: BatchNorm, output: Affine) {
        var ranges = ConsecutiveRanges()
        self.temporal = temporal.map { ranges.affine($0) }
        self.convolution = ranges.affine(convolution)
        self.lstm = LSTMRanges(
            input: ranges.next(lstm.inputs * lstm.gateWidth), recurrent: ranges.next(lstm.units * lstm.gateWidth),
            bias: ranges.next(lstm.gateWidth))
        self.dense = ranges.affine(dense)
        let scale = ranges.next(batchNorm.features), shift = ranges.next(batchNorm.features)
        self.output = ranges.affine(output)
        trainableCount = ranges.end
        self.batchNorm = BatchNormRanges(
            scale: scale, shift: shift, runningMean: ranges.next(batchNorm.features),
            runningVariance: ranges.next(batchNorm.features))
        parameterCount = ranges.end
    }
}

/// Consecutive ranges of a flat vector, handed out in order from its start.
struct ConsecutiveRanges {
    /// Where the next range starts: the length of those handed out.
    private(set) var end = 0

    mutating func next(_ count: Int) -> Range<Int> {
        defer { end += count }
        return end..<end + count
    }
}

extension ConsecutiveRanges {
    fileprivate mutating func affine(_ layer: Affine) -> ParameterLayout.AffineRanges {
        ParameterLayout.AffineRanges(weight: next(layer.inputs * layer.outputs), bias: next(layer.outputs))
    }
}
