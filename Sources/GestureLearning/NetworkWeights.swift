/// A fully connected layer's parameters: `weight` is `inputs × outputs`, row-major (row i holds
/// input i's weight to every output), then one bias per output.
public struct DenseWeights: Sendable, Equatable {
    public var inputs: Int
    public var outputs: Int
    public var weight: [Float]
    public var bias: [Float]

    public init(inputs: Int, outputs: Int, weight: [Float], bias: [Float]) {
        self.inputs = inputs
        self.outputs = outputs
        self.weight = weight
        self.bias = bias
    }

    var isConsistent: Bool { weight.count == inputs * outputs && bias.count == outputs }
}

/// An LSTM's parameters, each gate a block of `units` columns in the order input, forget, cell
/// candidate, output: `input` is `inputs × 4·units`, `recurrent` is `units × 4·units`, both
/// row-major, and one bias of 4·units. The activations are sigmoid for the gates and tanh for the
/// candidate and the cell; no peepholes.
public struct LSTMWeights: Sendable, Equatable {
    public var inputs: Int
    public var units: Int
    public var input: [Float]
    public var recurrent: [Float]
    public var bias: [Float]

    public init(inputs: Int, units: Int, input: [Float], recurrent: [Float], bias: [Float]) {
        self.inputs = inputs
        self.units = units
        self.input = input
        self.recurrent = recurrent
        self.bias = bias
    }

    /// The gates in their order here.
    public enum Gate: Int, CaseIterable, Sendable {
        case input, forget, candidate, output
    }

    /// `gate`'s weights from the inputs, `units × inputs` row-major (row u is unit u's weights),
    /// the layout Core ML and ONNX store.
    public func inputMatrix(_ gate: Gate) -> [Float] { gateRows(input, rows: inputs, gate: gate) }

    /// `gate`'s weights from the previous hidden state, `units × units`, row u being unit u's.
    public func recurrentMatrix(_ gate: Gate) -> [Float] { gateRows(recurrent, rows: units, gate: gate) }

    public func bias(_ gate: Gate) -> [Float] { Array(bias[gate.rawValue * units..<(gate.rawValue + 1) * units]) }

    /// Builds the weights from each gate's matrices and bias, in `Gate` order and the layout
    /// `inputMatrix` and `recurrentMatrix` return.
    public init(inputs: Int, units: Int, inputMatrices: [[Float]], recurrentMatrices: [[Float]], biases: [[Float]]) {
        precondition(
            inputMatrices.count == 4 && recurrentMatrices.count == 4 && biases.count == 4
                && inputMatrices.allSatisfy { $0.count == units * inputs }
                && recurrentMatrices.allSatisfy { $0.count == units * units } && biases.allSatisfy { $0.count == units }
        )
        func interleave(_ matrices: [[Float]], rows: Int) -> [Float] {
            var stacked = [Float](repeating: 0, count: rows * 4 * units)
            for (gate, matrix) in matrices.enumerated() {
                for unit in 0..<units {
                    for row in 0..<rows { stacked[row * 4 * units + gate * units + unit] = matrix[unit * rows + row] }
                }
            }
            return stacked
        }
        self.init(
            inputs: inputs, units: units, input: interleave(inputMatrices, rows: inputs),
            recurrent: interleave(recurrentMatrices, rows: units), bias: biases.flatMap { $0 })
    }

    private func gateRows(_ weights: [Float], rows: Int, gate: Gate) -> [Float] {
        (0..<units).flatMap { unit in
            (0..<rows).map { row in weights[row * 4 * units + gate.rawValue * units + unit] }
        }
    }

    var isConsistent: Bool {
        input.count == inputs * 4 * units && recurrent.count == units * 4 * units && bias.count == 4 * units
    }
}

/// Batch normalization at inference: `scale · (x − mean) / √(variance + epsilon) + shift`.
public struct BatchNormWeights: Sendable, Equatable {
    public var scale: [Float]
    public var shift: [Float]
    public var mean: [Float]
    public var variance: [Float]
    public var epsilon: Float

    public init(scale: [Float], shift: [Float], mean: [Float], variance: [Float], epsilon: Float) {
        self.scale = scale
        self.shift = shift
        self.mean = mean
        self.variance = variance
        self.epsilon = epsilon
    }
}

/// Every parameter of the network, by layer, in the order a window goes through them: the
/// convolution (one window, `window × features` values sample by sample, to the filters), ReLU,
/// the LSTM, dense, batch norm, ReLU, the output layer, softmax. What model formats are made from.
public struct NetworkWeights: Sendable, Equatable {
    public var convolution: DenseWeights
    public var lstm: LSTMWeights
    public var dense: DenseWeights
    public var batchNorm: BatchNormWeights
    public var output: DenseWeights

    public init(
        convolution: DenseWeights, lstm: LSTMWeights, dense: DenseWeights, batchNorm: BatchNormWeights,
        output: DenseWeights
    ) {
        self.convolution = convolution
        self.lstm = lstm
        self.dense = dense
        self.batchNorm = batchNorm
        self.output = output
    }
}

extension GestureModel {
    /// The network's parameters by layer (the normalization is separate, in `normalization`), for
    /// Turi Create's architecture: without a temporal convolution.
    public var weights: NetworkWeights {
        precondition(architecture.temporal == nil, "NetworkWeights hold Turi Create's layers only")
        let network = network, layout = network.layout
        func dense(_ layer: Affine, _ ranges: ParameterLayout.AffineRanges) -> DenseWeights {
            DenseWeights(
                inputs: layer.inputs, outputs: layer.outputs, weight: Array(parameters[ranges.weight]),
                bias: Array(parameters[ranges.bias]))
        }
        return NetworkWeights(
            convolution: dense(network.convolution, layout.convolution),
            lstm: LSTMWeights(
                inputs: network.lstm.inputs, units: network.lstm.units, input: Array(parameters[layout.lstm.input]),
                recurrent: Array(parameters[layout.lstm.recurrent]), bias: Array(parameters[layout.lstm.bias])),
            dense: dense(network.dense, layout.dense),
            batchNorm: BatchNormWeights(
                scale: Array(parameters[layout.batchNorm.scale]), shift: Array(parameters[layout.batchNorm.shift]),
                mean: Array(parameters[layout.batchNorm.runningMean]),
                variance: Array(parameters[layout.batchNorm.runningVariance]), epsilon: network.batchNorm.epsilon),
            output: dense(network.output, layout.output))
    }

    /// A model from another format's weights. The large matrices are rounded to bfloat16, as every
    /// model's are; batch norm's epsilon must be GestureLab's (0.001), as it is Turi Create's.
    public init(
        _ description: ModelDescription, normalization: FeatureNormalization, weights: NetworkWeights
    ) throws(ModelFileError) {
        let architecture = Architecture(
            windowSize: description.windowing.window * description.featureNames.count,
            classes: description.classNames.count,
            layers: LayerSizes(
                convolutionFilters: weights.convolution.outputs, lstmUnits: weights.lstm.units,
                denseUnits: weights.dense.outputs))
        let network = Network(architecture)
        guard normalization.featureCount == description.featureNames.count else {
            throw mismatch("\(normalization.featureCount) normalized features for \(description.featureNames.count)")
        }
        try weights.checkFit(network)
        let parameters = weights.parameters(network.layout)
        guard parameters.allSatisfy(\.isFinite) else { throw mismatch("a weight is not a finite number") }
        self.init(
            featureNames: description.featureNames, windowing: description.windowing,
            samplingRate: description.samplingRate, classNames: description.classNames,
            normalization: normalization, architecture: architecture, parameters: parameters)
    }
}

extension NetworkWeights {
    /// Throws unless each layer takes what the one before gives and `network` has these layers.
    fileprivate func checkFit(_ network: Network) throws(ModelFileError) {
        for (name, layer, inputs) in [
            ("convolution", convolution, network.convolution.inputs),
            ("dense", dense, lstm.units),
            ("output", output, dense.outputs),
        ] where !layer.isConsistent || layer.inputs != inputs {
            throw mismatch("the \(name) layer takes \(layer.inputs) inputs where \(inputs) come")
        }
        guard lstm.isConsistent, lstm.inputs == convolution.outputs else {
            throw mismatch("the LSTM takes \(lstm.inputs) inputs where \(convolution.outputs) come")
        }
        guard output.outputs == network.output.outputs else {
            throw mismatch("\(output.outputs) outputs for \(network.output.outputs) classes")
        }
        let epsilon = network.batchNorm.epsilon
        guard
            [batchNorm.scale, batchNorm.shift, batchNorm.mean, batchNorm.variance].allSatisfy({
                $0.count == dense.outputs
            }), batchNorm.variance.allSatisfy({ $0 >= 0 }), batchNorm.epsilon == epsilon
        else {
            throw mismatch("batch norm is not \(dense.outputs) features with epsilon \(epsilon)")
        }
    }

    /// The weights in a network's one parameter vector, laid out as `layout`.
    fileprivate func parameters(_ layout: ParameterLayout) -> [Float] {
        var parameters = [Float](repeating: 0, count: layout.parameterCount)
        for (range, values) in [
            (layout.convolution.weight, convolution.weight), (layout.convolution.bias, convolution.bias),
            (layout.lstm.input, lstm.input), (layout.lstm.recurrent, lstm.recurrent), (layout.lstm.bias, lstm.bias),
            (layout.dense.weight, dense.weight), (layout.dense.bias, dense.bias),
            (layout.batchNorm.scale, batchNorm.scale), (layout.batchNorm.shift, batchNorm.shift),
            (layout.batchNorm.runningMean, batchNorm.mean), (layout.batchNorm.runningVariance, batchNorm.variance),
            (layout.output.weight, output.weight), (layout.output.bias, output.bias),
        ] {
            parameters.replaceSubrange(range, with: values)
        }
        return parameters
    }
}

private func mismatch(_ what: String) -> ModelFileError {
    ModelFileError(description: "the weights do not fit together: \(what)")
}
