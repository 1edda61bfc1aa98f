import GestureCore
import GestureLearning
import SwiftProtobuf

/// A Core ML activity classifier shaped as Turi Create's (the book's model, or one GestureLab
/// exported) read into a GestureLab model.
public struct CoreMLImport {
    public let model: GestureModel
    /// The file's inputs, outputs, classes and metadata, one line each, as `gesture import-model`
    /// prints them.
    public let interface: [String]

    /// `rate` is the sampling rate in Hz when the file does not give it (Turi Create's files don't).
    public init(serialized bytes: [UInt8], rate: Double?) throws(InteropError) {
        let spec: CoreMLModel
        do {
            spec = try CoreMLModel(serializedBytes: bytes)
        } catch {
            throw InteropError("not a Core ML model file: \(error)")
        }
        guard case .neuralNetworkClassifier(let network) = spec.type else {
            throw InteropError(
                "a Core ML model of another kind: GestureLab reads neural network classifiers shaped as "
                    + "Turi Create's activity classifier")
        }
        let metadata = spec.description_p.metadata.userDefined
        let layers = try TuriLayers(
            network.layers.filter {
                !$0.name.hasPrefix(RejectionOutput.coreMLLayerPrefix)
                    && !$0.name.hasPrefix(CoreMLRandomConvolutions.layerPrefix)
            })
        let description = try Self.description(of: spec, network: network, layers: layers, rate: rate)
        let normalization = try Self.normalization(metadata, features: description.featureNames.count)
        do {
            model = try GestureModel(
                description, normalization: normalization,
                weights: try layers.weights(unfolding: normalization))
        } catch let error as InteropError {
            throw error
        } catch {
            throw InteropError("\(error)")
        }
        interface = Self.interface(of: spec, classLabels: network.stringClassLabels.vector, model: model)
    }

    private static func description(
        of spec: CoreMLModel, network: CoreMLNeuralNetworkClassifier, layers: TuriLayers, rate: Double?
    ) throws(InteropError) -> ModelDescription {
        let metadata = spec.description_p.metadata.userDefined
        let window = layers.window, featureCount = layers.featureCount
        guard let input = spec.description_p.input.first,
            input.type.multiArrayType.shape.reduce(1, *) == window * featureCount
        else {
            throw InteropError("its first input is not a window of \(window) × \(featureCount) features")
        }
        let featureNames = metadata["features"].map { $0.split(separator: ",").map(String.init) } ?? []
        guard featureNames.count == featureCount else {
            throw InteropError(
                "its metadata names \(featureNames.count) features (\"features\") where the convolution reads \(featureCount)"
            )
        }
        for name in featureNames {
            do { _ = try Feature(named: name) } catch { throw InteropError("it reads \(error)") }
        }
        let samplingRate = try Self.rate(metadata, given: rate)
        let windowsPerChunk = metadata[GestureLabMetadata.windowsPerChunk].flatMap { Int($0) } ?? 20
        guard (1...1 << 12).contains(windowsPerChunk) else {
            throw InteropError("\(GestureLabMetadata.windowsPerChunk) \(windowsPerChunk) is out of range")
        }
        return ModelDescription(
            featureNames: featureNames, windowing: Windowing(window: window, windowsPerChunk: windowsPerChunk),
            samplingRate: samplingRate, classNames: try classNames(network, metadata: metadata))
    }

    private static func rate(_ metadata: [String: String], given: Double?) throws(InteropError) -> Double {
        if let text = metadata[GestureLabMetadata.samplingRate] {
            guard let rate = Double(text), rate.isFinite, rate > 0 else {
                throw InteropError("its \(GestureLabMetadata.samplingRate) \"\(text)\" is not a rate in Hz")
            }
            return rate
        }
        guard let given else {
            throw InteropError(
                "the file does not say at what rate its features were sampled (Turi Create's files don't); "
                    + "give it with --rate (the book's model: --rate 25)")
        }
        return given
    }

    /// GestureLab's own names when it wrote the file; else the file's, the book's `_it` taken off.
    private static func classNames(
        _ network: CoreMLNeuralNetworkClassifier, metadata: [String: String]
    ) throws(InteropError) -> [String] {
        let labels = network.stringClassLabels.vector
        guard labels.count >= 2 else {
            throw InteropError("it has \(labels.count) string class labels; a classifier needs two or more")
        }
        if let names = metadata[GestureLabMetadata.classNames]?.split(separator: ",").map(String.init),
            names.count == labels.count
        {
            return names
        }
        let suffix = BookInterface.labelSuffix
        guard labels.allSatisfy({ $0.hasSuffix(suffix) && $0.count > suffix.count }) else { return labels }
        return labels.map { String($0.dropLast(suffix.count)) }
    }

    private static func normalization(
        _ metadata: [String: String], features: Int
    ) throws(InteropError) -> FeatureNormalization {
        func floats(_ key: String) throws(InteropError) -> [Float]? {
            guard let text = metadata[key] else { return nil }
            let values = text.split(separator: ",").compactMap { Float($0) }
            guard values.count == features, values.allSatisfy(\.isFinite) else {
                throw InteropError("its \(key) is not \(features) numbers")
            }
            return values
        }
        let mean = try floats(GestureLabMetadata.featureMean) ?? Array(repeating: 0, count: features)
        let deviation = try floats(GestureLabMetadata.featureDeviation) ?? Array(repeating: 1, count: features)
        guard deviation.allSatisfy({ $0 > 0 }) else {
            throw InteropError("its \(GestureLabMetadata.featureDeviation) has a value that is not positive")
        }
        return FeatureNormalization(mean: mean, deviation: deviation)
    }

    private static func interface(of spec: CoreMLModel, classLabels: [String], model: GestureModel) -> [String] {
        let description = spec.description_p
        let metadata = description.metadata.userDefined
        let madeBy =
            metadata["turicreate_version"].map { "Turi Create \($0)" } ?? "unknown"
        return [
            "Core ML specification version \(spec.specificationVersion), neural network classifier: \(description.metadata.shortDescription)",
            "inputs: " + description.input.map(\.summary).joined(separator: ", "),
            "outputs: " + description.output.map(\.summary).joined(separator: ", "),
            "classes: "
                + zip(classLabels, model.classNames).map { $0 == $1 ? $0 : "\($0) → \($1)" }.joined(separator: ", "),
            "features: \(model.featureNames.joined(separator: ", ")); window \(model.windowing.window) samples at \(model.samplingRate.shortText) Hz",
            "layers: convolution \(model.architecture.convolutionFilters), LSTM \(model.architecture.lstmUnits), dense \(model.architecture.denseUnits) (made by \(metadata[GestureLabMetadata.version].map { "GestureLab \($0)" } ?? madeBy))",
        ]
    }
}

extension CoreMLFeatureDescription {
    /// `features [1, 20, 6] double (optional)`.
    var summary: String {
        let kind: String
        switch type.type {
        case .multiArrayType(let array): kind = "\(array.shape) \(array.dataType)"
        case .dictionaryType: kind = "dictionary"
        case .stringType: kind = "string"
        case .int64Type: kind = "int64"
        case .doubleType: kind = "double"
        case nil: kind = "of an unknown type"
        }
        return "\(name) \(kind)\(type.isOptional ? " (optional)" : "")"
    }
}

/// The layers of Turi Create's activity classifier, in their order, checked one by one.
private struct TuriLayers {
    let convolution: CoreMLConvolutionLayerParams
    let lstm: CoreMLUniDirectionalLSTMLayerParams
    let dense: CoreMLInnerProductLayerParams
    let batchNorm: CoreMLBatchnormLayerParams
    let output: CoreMLInnerProductLayerParams

    var window: Int { Int(convolution.kernelSize.last ?? 0) }
    var featureCount: Int { Int(convolution.kernelChannels) }

    static let expected = [
        "permute", "convolution", "ReLU", "uniDirectionalLSTM", "innerProduct", "batchnorm", "ReLU",
        "innerProduct", "softmax",
    ]

    init(_ layers: [CoreMLNeuralNetworkLayer]) throws(InteropError) {
        let kinds = layers.map(\.kindName)
        guard kinds == Self.expected else {
            let index =
                zip(kinds, Self.expected).enumerated().first { $1.0 != $1.1 }?.offset
                ?? min(kinds.count, Self.expected.count)
            let found = index < kinds.count ? "'\(layers[index].name)' is \(kinds[index])" : "is missing"
            let wanted = index < Self.expected.count ? Self.expected[index] : "no layer"
            throw InteropError(
                "not shaped as Turi Create's activity classifier: layer \(index + 1) \(found) where it has \(wanted)")
        }
        guard case .permute(let permute) = layers[0].layer, permute.axis == [0, 3, 1, 2] else {
            throw InteropError("its permute layer does not turn the window into channels (axes [0, 3, 1, 2])")
        }
        guard case .convolution(let convolution) = layers[1].layer,
            case .uniDirectionalLstm(let lstm) = layers[3].layer,
            case .innerProduct(let dense) = layers[4].layer, case .batchnorm(let batchNorm) = layers[5].layer,
            case .innerProduct(let output) = layers[7].layer
        else { preconditionFailure("the kinds were checked") }
        (self.convolution, self.lstm, self.dense, self.batchNorm, self.output) =
            (convolution, lstm, dense, batchNorm, output)
        try checkConvolution()
        try checkLSTM()
        guard !batchNorm.computeMeanVar, !batchNorm.instanceNormalization else {
            throw InteropError("its batch norm computes its statistics from the input; GestureLab's uses stored ones")
        }
    }

    private func checkConvolution() throws(InteropError) {
        let kernel = convolution.kernelSize
        guard kernel.count == 2, kernel[0] == 1, kernel[1] > 0, convolution.stride == kernel,
            convolution.nGroups <= 1, !convolution.isDeconvolution,
            convolution.dilationFactor.allSatisfy({ $0 == 1 }), case .valid = convolution.convolutionPaddingType
        else {
            throw InteropError(
                "its convolution is not one window wide (kernel \(kernel), stride \(convolution.stride), valid padding)"
            )
        }
    }

    private func checkLSTM() throws(InteropError) {
        let activations = lstm.activations.map(\.nonlinearityType)
        guard activations == [.sigmoid(.init()), .tanh(.init()), .tanh(.init())] else {
            throw InteropError("its LSTM's activations are not sigmoid, tanh, tanh")
        }
        let parameters = lstm.params
        guard !parameters.sequenceOutput, !parameters.hasPeepholeVectors_p, !parameters.coupledInputAndForgetGate,
            !lstm.reverseInput
        else {
            throw InteropError("its LSTM has peepholes, coupled gates, reversed input or sequence output")
        }
        // GestureLab's cell is never clipped; a clip this large never acts on a trained model.
        guard parameters.cellClipThreshold == 0 || parameters.cellClipThreshold >= 100 else {
            throw InteropError(
                "its LSTM clips its cell state at \(parameters.cellClipThreshold), GestureLab's does not")
        }
    }

    /// The weights in GestureLab's layout, the normalization taken back out of the convolution.
    func weights(unfolding normalization: FeatureNormalization) throws(InteropError) -> NetworkWeights {
        let filters = Int(convolution.outputChannels), window = window, features = featureCount
        let units = Int(lstm.outputVectorSize), inputs = Int(lstm.inputVectorSize)
        let kernel = try convolution.weights.values("convolution weights", count: filters * features * window)
        let folded =
            convolution.hasBias_p
            ? try convolution.bias.values("convolution bias", count: filters) : Array(repeating: 0, count: filters)
        var weight = [Float](repeating: 0, count: kernel.count)
        var bias = folded.map(Double.init)
        for sample in 0..<window {
            for feature in 0..<features {
                for filter in 0..<filters {
                    let value = kernel[(filter * features + feature) * window + sample]
                    weight[(sample * features + feature) * filters + filter] = value * normalization.deviation[feature]
                    bias[filter] += Double(value) * Double(normalization.mean[feature])
                }
            }
        }
        return NetworkWeights(
            convolution: DenseWeights(
                inputs: window * features, outputs: filters, weight: weight, bias: bias.map(Float.init)),
            lstm: try lstmWeights(inputs: inputs, units: units),
            dense: try dense.denseWeights("dense"), batchNorm: try batchNormWeights(),
            output: try output.denseWeights("output"))
    }

    private func lstmWeights(inputs: Int, units: Int) throws(InteropError) -> LSTMWeights {
        let gates = lstm.weightParams
        let inputMatrices = [
            try gates.inputGateWeightMatrix.values("LSTM input gate weights", count: units * inputs),
            try gates.forgetGateWeightMatrix.values("LSTM forget gate weights", count: units * inputs),
            try gates.blockInputWeightMatrix.values("LSTM block input weights", count: units * inputs),
            try gates.outputGateWeightMatrix.values("LSTM output gate weights", count: units * inputs),
        ]
        let recurrentMatrices = [
            try gates.inputGateRecursionMatrix.values("LSTM input gate recursion", count: units * units),
            try gates.forgetGateRecursionMatrix.values("LSTM forget gate recursion", count: units * units),
            try gates.blockInputRecursionMatrix.values("LSTM block input recursion", count: units * units),
            try gates.outputGateRecursionMatrix.values("LSTM output gate recursion", count: units * units),
        ]
        let zeros = [Float](repeating: 0, count: units)
        var biases = [zeros, zeros, zeros, zeros]
        if lstm.params.hasBiasVectors_p {
            biases = [
                try gates.inputGateBiasVector.values("LSTM input gate bias", count: units),
                try gates.forgetGateBiasVector.values("LSTM forget gate bias", count: units),
                try gates.blockInputBiasVector.values("LSTM block input bias", count: units),
                try gates.outputGateBiasVector.values("LSTM output gate bias", count: units),
            ]
        }
        if lstm.params.forgetBias { biases[1] = biases[1].map { $0 + 1 } }
        return LSTMWeights(
            inputs: inputs, units: units, inputMatrices: inputMatrices, recurrentMatrices: recurrentMatrices,
            biases: biases)
    }

    /// GestureLab's epsilon is fixed; another one moves into the variance, which it only ever adds to.
    private func batchNormWeights() throws(InteropError) -> BatchNormWeights {
        let channels = Int(batchNorm.channels)
        let epsilon: Float = 0.001
        return BatchNormWeights(
            scale: try batchNorm.gamma.values("batch norm gamma", count: channels),
            shift: try batchNorm.beta.values("batch norm beta", count: channels),
            mean: try batchNorm.mean.values("batch norm mean", count: channels),
            variance: try batchNorm.variance.values("batch norm variance", count: channels).map {
                $0 + batchNorm.epsilon - epsilon
            }, epsilon: epsilon)
    }
}

extension CoreMLNeuralNetworkLayer {
    /// The layer's kind as Core ML's schema names it; an activation by its function.
    var kindName: String {
        switch layer {
        case .permute: "permute"
        case .convolution: "convolution"
        case .uniDirectionalLstm: "uniDirectionalLSTM"
        case .innerProduct: "innerProduct"
        case .batchnorm: "batchnorm"
        case .softmax: "softmax"
        case .l2Normalize: "l2normalize"
        case .reduce: "reduce"
        case .reshape: "reshape"
        case .unary: "unary"
        case .add: "add"
        case .multiply: "multiply"
        case .scale: "scale"
        case .bias: "bias"
        case .max: "max"
        case .min: "min"
        case .loadConstant: "loadConstant"
        case .concat: "concat"
        case .slice: "slice"
        case .activation(let activation):
            switch activation.nonlinearityType {
            case .reLu: "ReLU"
            case .tanh: "tanh"
            case .sigmoid: "sigmoid"
            case nil: "an activation GestureLab does not know"
            }
        case nil: "a kind GestureLab does not read"
        }
    }
}

extension CoreMLInnerProductLayerParams {
    /// Core ML's `outputs × inputs` weights in GestureLab's `inputs × outputs`.
    func denseWeights(_ name: String) throws(InteropError) -> DenseWeights {
        let inputs = Int(inputChannels), outputs = Int(outputChannels)
        let stored = try weights.values("\(name) weights", count: inputs * outputs)
        let weight = (0..<inputs).flatMap { input in (0..<outputs).map { stored[$0 * inputs + input] } }
        let bias =
            hasBias_p ? try self.bias.values("\(name) bias", count: outputs) : Array(repeating: 0, count: outputs)
        return DenseWeights(inputs: inputs, outputs: outputs, weight: weight, bias: bias)
    }
}

extension CoreMLWeightParams {
    /// The values, stored as floats or as half floats, checked to be `count` finite numbers.
    func values(_ name: String, count: Int) throws(InteropError) -> [Float] {
        let values =
            floatValue.isEmpty
            ? stride(from: 0, to: float16Value.count - 1, by: 2).map { index in
                Float(Float16(bitPattern: UInt16(float16Value[index]) | UInt16(float16Value[index + 1]) << 8))
            } : floatValue
        guard values.count == count else {
            throw InteropError("its \(name) are \(values.count) numbers where its sizes call for \(count)")
        }
        guard values.allSatisfy(\.isFinite) else { throw InteropError("its \(name) hold a number that is not finite") }
        return values
    }
}
