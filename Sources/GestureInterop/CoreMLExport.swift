import GestureCore
import GestureLearning
import SwiftProtobuf

/// A model as a Core ML neural network classifier with the interface of Turi Create's activity
/// classifier, the model the book's GestureIt app loads: inputs `features` [1, window, features],
/// `hiddenIn` and `cellIn`; outputs `activityProbability`, `activity`, `hiddenOut` and `cellOut`;
/// one LSTM step per window. The feature normalization is folded into the convolution. A model
/// that rejects unknown motion has one more output, `rejectionMargin` [classes]: each class's
/// cosine distance to its nearest prototype less its limit; a window is unknown motion when the
/// margin of its `activity` is above 0. A model that also tests the motion's statistics has a
/// third state, `motionIn` [2 × features + 1] (optional, zeros at the start) and `motionOut`, and
/// its margin is the larger of the two tests'. A model with random convolutions has a fourth,
/// `recentIn` and `recentCountIn` (see `CoreMLRandomConvolutions`).
public struct CoreMLExport {
    public let model: GestureModel
    /// Class names as the file gives them: the model's, or GestureIt's (`shake_it`).
    public let classLabels: [String]

    /// `bookLabels` names each class as the book's app expects (`chop` becomes `chop_it`).
    public init(model: GestureModel, bookLabels: Bool = false) throws(InteropError) {
        try InteropError.checkExportable(model)
        self.model = model
        classLabels = bookLabels ? model.classNames.map { $0 + BookInterface.labelSuffix } : model.classNames
    }

    public func serialized() -> [UInt8] {
        var spec = CoreMLModel()
        spec.specificationVersion = 1
        spec.description_p = interface
        spec.neuralNetworkClassifier = network
        // Serializing a message built in memory, with no required fields, cannot fail.
        return try! spec.serializedBytes()
    }

    /// Where the model differs from what the book's GestureIt app feeds its model, if it does.
    public var differencesFromTheBook: [String] {
        var differences: [String] = []
        if model.featureNames != BookInterface.features {
            differences.append(
                "it reads \(model.featureNames.joined(separator: ", ")), not the book's rotX … accelZ "
                    + "(train with --features \(BookInterface.features.joined(separator: " ")) for it)")
        }
        if model.windowing.window != BookInterface.window {
            differences.append("its window is \(model.windowing.window) samples, not 20")
        }
        if model.samplingRate != BookInterface.rate {
            differences.append("it expects \(model.samplingRate.shortText) Hz, not the book's 25")
        }
        if let convolutions = model.randomConvolutions {
            differences.append(
                "its random convolutions read the last \(convolutions.convolutions.history) samples, which the app must "
                    + "feed back (recentOut as recentIn, recentCountOut as recentCountIn) or they see one window "
                    + "(train with --classifier network for the app as it is)")
        }
        return differences
    }

    private var units: Int { model.architecture.lstmUnits }

    private var randomConvolutions: CoreMLRandomConvolutions? {
        model.randomConvolutions.map { CoreMLRandomConvolutions(classifier: $0, window: model.windowing.window) }
    }

    private var interface: CoreMLModelDescription {
        var description = CoreMLModelDescription()
        let featureList = model.featureNames.joined(separator: ", ")
        description.input = [
            .array(
                BookInterface.featuresInput, shape: [1, model.windowing.window, model.featureNames.count],
                about: "Window × [\(featureList)]"),
            .array(BookInterface.hiddenIn, shape: [units], about: "LSTM hidden state input", optional: true),
            .array(BookInterface.cellIn, shape: [units], about: "LSTM cell state input", optional: true),
        ]
        description.output = [
            .probabilities(BookInterface.probabilities, about: "Activity prediction probabilities"),
            .array(BookInterface.hiddenOut, shape: [units], about: "LSTM hidden state output"),
            .array(BookInterface.cellOut, shape: [units], about: "LSTM cell state output"),
            .string(BookInterface.label, about: "Class label of top prediction"),
        ]
        if model.exportedRejection != nil {
            description.output.append(
                .array(
                    RejectionOutput.coreMLMargin, shape: [model.classNames.count],
                    about: "Distance to the nearest prototype less the limit: above 0 for activity, unknown motion"))
        }
        if let motion = model.exportedRejection?.motion {
            let shape = [motion.center.count + 1]
            description.input.append(
                .array(
                    RejectionOutput.coreMLMotionIn, shape: shape,
                    about: "The motion's moving averages from the last window (zeros at the start)", optional: true))
            description.output.append(
                .array(
                    RejectionOutput.coreMLMotionOut, shape: shape,
                    about: "The motion's moving averages: feed them back with the next window"))
        }
        description.input += randomConvolutions?.inputs ?? []
        description.output += randomConvolutions?.outputs ?? []
        description.predictedFeatureName = BookInterface.label
        description.predictedProbabilitiesName = BookInterface.probabilities
        description.metadata.shortDescription = "Gesture classifier made by GestureLab \(gestureLabVersion)"
        description.metadata.versionString = gestureLabVersion
        description.metadata.userDefined = metadata
        return description
    }

    /// Turi Create's keys, then GestureLab's own: enough to read the model back exactly.
    private var metadata: [String: String] {
        [
            "type": "ActivityClassifier", "version": "2", "turicreate_version": "5.0", "target": "activity",
            "session_id": "sessionId", "prediction_window": String(model.windowing.window),
            "features": model.featureNames.joined(separator: ","),
            GestureLabMetadata.version: gestureLabVersion,
            GestureLabMetadata.samplingRate: "\(model.samplingRate)",
            GestureLabMetadata.windowsPerChunk: String(model.windowing.windowsPerChunk),
            GestureLabMetadata.classNames: model.classNames.joined(separator: ","),
            GestureLabMetadata.featureMean: model.normalization.mean.map(\.description).joined(separator: ","),
            GestureLabMetadata.featureDeviation: model.normalization.deviation.map(\.description)
                .joined(separator: ","),
        ]
    }

    /// The softmax's output: the probabilities, or with random convolutions, the network's share of them.
    private var networkProbabilities: String {
        randomConvolutions == nil ? BookInterface.probabilities : "network_probabilities"
    }

    private var network: CoreMLNeuralNetworkClassifier {
        let weights = model.weights
        var network = CoreMLNeuralNetworkClassifier()
        let layers: [CoreMLNeuralNetworkLayer] = [
            .permute("permute_layer", BookInterface.featuresInput, "conv_in", axes: [0, 3, 1, 2]),
            convolution(FoldedConvolution(model: model)),
            .activation("relu_layer0", "relu0_in", "lstm_in", .reLu(CoreMLActivationReLU())),
            lstm(weights.lstm),
            .innerProduct("dense_layer", "dense0_in", "bn_in", weights.dense),
            batchNorm(weights.batchNorm),
            .activation("relu_layer1", "relu1_in", "dense1_in", .reLu(CoreMLActivationReLU())),
            .innerProduct("dense_layer1", "dense1_in", "softmax_in", weights.output),
            .layer(BookInterface.probabilities, ["softmax_in"], [networkProbabilities], .softmax(.init())),
        ]
        let averaged =
            randomConvolutions?.layers(
                window: "conv_in", networkProbabilities: networkProbabilities, output: BookInterface.probabilities)
            ?? []
        network.layers = layers + averaged + (model.exportedRejection.map(rejectionLayers) ?? [])
        network.stringClassLabels.vector = classLabels
        network.labelProbabilityLayerName = BookInterface.probabilities
        return network
    }

    /// The convolution's kernel is `filters × features × 1 × window`: one output per window.
    private func convolution(_ folded: FoldedConvolution) -> CoreMLNeuralNetworkLayer {
        var parameters = CoreMLConvolutionLayerParams()
        parameters.outputChannels = UInt64(folded.filters)
        parameters.kernelChannels = UInt64(folded.features)
        parameters.nGroups = 1
        parameters.kernelSize = [1, UInt64(folded.window)]
        parameters.stride = [1, UInt64(folded.window)]
        parameters.dilationFactor = [1, 1]
        parameters.valid.paddingAmounts.borderAmounts = [.init(), .init()]
        parameters.hasBias_p = true
        parameters.weights.floatValue = folded.kernel
        parameters.bias.floatValue = folded.bias
        return .layer("conv_layer", ["conv_in"], ["relu0_in"], .convolution(parameters))
    }

    private func lstm(_ weights: LSTMWeights) -> CoreMLNeuralNetworkLayer {
        var parameters = CoreMLUniDirectionalLSTMLayerParams()
        parameters.inputVectorSize = UInt64(weights.inputs)
        parameters.outputVectorSize = UInt64(weights.units)
        let activations: [CoreMLActivationParams.OneOf_NonlinearityType] = [
            .sigmoid(.init()), .tanh(.init()), .tanh(.init()),
        ]
        parameters.activations = activations.map {
            var activation = CoreMLActivationParams()
            activation.nonlinearityType = $0
            return activation
        }
        parameters.params.hasBiasVectors_p = true
        parameters.params.cellClipThreshold = BookInterface.cellClipThreshold
        var gates = CoreMLLSTMWeightParams()
        gates.inputGateWeightMatrix.floatValue = weights.inputMatrix(.input)
        gates.forgetGateWeightMatrix.floatValue = weights.inputMatrix(.forget)
        gates.blockInputWeightMatrix.floatValue = weights.inputMatrix(.candidate)
        gates.outputGateWeightMatrix.floatValue = weights.inputMatrix(.output)
        gates.inputGateRecursionMatrix.floatValue = weights.recurrentMatrix(.input)
        gates.forgetGateRecursionMatrix.floatValue = weights.recurrentMatrix(.forget)
        gates.blockInputRecursionMatrix.floatValue = weights.recurrentMatrix(.candidate)
        gates.outputGateRecursionMatrix.floatValue = weights.recurrentMatrix(.output)
        gates.inputGateBiasVector.floatValue = weights.bias(.input)
        gates.forgetGateBiasVector.floatValue = weights.bias(.forget)
        gates.blockInputBiasVector.floatValue = weights.bias(.candidate)
        gates.outputGateBiasVector.floatValue = weights.bias(.output)
        parameters.weightParams = gates
        return .layer(
            "lstm_layer", ["lstm_in", BookInterface.hiddenIn, BookInterface.cellIn],
            ["dense0_in", BookInterface.hiddenOut, BookInterface.cellOut], .uniDirectionalLstm(parameters))
    }

    private func batchNorm(_ weights: BatchNormWeights) -> CoreMLNeuralNetworkLayer {
        var parameters = CoreMLBatchnormLayerParams()
        parameters.channels = UInt64(weights.scale.count)
        parameters.epsilon = weights.epsilon
        parameters.gamma.floatValue = weights.scale
        parameters.beta.floatValue = weights.shift
        parameters.mean.floatValue = weights.mean
        parameters.variance.floatValue = weights.variance
        return .layer("bn_layer", ["bn_in"], ["relu1_in"], .batchnorm(parameters))
    }
}

/// The names and sizes of the book's model: Turi Create's activity classifier for GestureIt.
enum BookInterface {
    static let featuresInput = "features"
    static let hiddenIn = "hiddenIn"
    static let cellIn = "cellIn"
    static let probabilities = "activityProbability"
    static let label = "activity"
    static let hiddenOut = "hiddenOut"
    static let cellOut = "cellOut"
    static let features = ["rotX", "rotY", "rotZ", "accelX", "accelY", "accelZ"]
    static let window = 20
    static let rate = 25.0
    /// The book's class names end in this: `chop_it`.
    static let labelSuffix = "_it"
    /// The book's model's cell clip, large enough never to clip.
    static let cellClipThreshold: Float = 50_000
}

/// The metadata keys GestureLab adds to the files it writes.
enum GestureLabMetadata {
    static let version = "gesturelab_version"
    static let samplingRate = "gesturelab_sampling_rate"
    static let windowsPerChunk = "gesturelab_windows_per_chunk"
    static let classNames = "gesturelab_class_names"
    static let featureMean = "gesturelab_feature_mean"
    static let featureDeviation = "gesturelab_feature_deviation"
}

/// The convolution with the feature normalization folded in: a window of raw features times the
/// kernel gives what the normalized window times the model's weights gives. Kernel index
/// `(filter · features + feature) · window + sample`, Core ML's layout.
struct FoldedConvolution {
    let filters: Int
    let features: Int
    let window: Int
    let kernel: [Float]
    let bias: [Float]

    init(model: GestureModel) {
        let layer = model.weights.convolution
        let normalization = model.normalization
        features = normalization.featureCount
        window = model.windowing.window
        filters = layer.outputs
        var kernel = [Float](repeating: 0, count: layer.weight.count)
        var bias = layer.bias.map(Double.init)
        for sample in 0..<window {
            for feature in 0..<features {
                let row = (sample * features + feature) * filters
                for filter in 0..<filters {
                    let scaled = layer.weight[row + filter] / normalization.deviation[feature]
                    kernel[(filter * features + feature) * window + sample] = scaled
                    bias[filter] -= Double(scaled) * Double(normalization.mean[feature])
                }
            }
        }
        self.kernel = kernel
        self.bias = bias.map(Float.init)
    }
}

extension CoreMLFeatureDescription {
    static func array(_ name: String, shape: [Int], about: String, optional: Bool = false) -> Self {
        var feature = Self()
        feature.name = name
        feature.shortDescription = about
        feature.type.multiArrayType.shape = shape.map(Int64.init)
        feature.type.multiArrayType.dataType = .double
        feature.type.isOptional = optional
        return feature
    }

    static func probabilities(_ name: String, about: String) -> Self {
        var feature = Self()
        feature.name = name
        feature.shortDescription = about
        feature.type.dictionaryType.stringKeyType = .init()
        return feature
    }

    static func string(_ name: String, about: String) -> Self {
        var feature = Self()
        feature.name = name
        feature.shortDescription = about
        feature.type.stringType = .init()
        return feature
    }
}

extension CoreMLNeuralNetworkLayer {
    static func layer(_ name: String, _ inputs: [String], _ outputs: [String], _ kind: OneOf_Layer) -> Self {
        var layer = Self()
        layer.name = name
        layer.input = inputs
        layer.output = outputs
        layer.layer = kind
        return layer
    }

    static func permute(_ name: String, _ input: String, _ output: String, axes: [UInt64]) -> Self {
        var parameters = CoreMLPermuteLayerParams()
        parameters.axis = axes
        return .layer(name, [input], [output], .permute(parameters))
    }

    static func activation(
        _ name: String, _ input: String, _ output: String, _ kind: CoreMLActivationParams.OneOf_NonlinearityType
    ) -> Self {
        var parameters = CoreMLActivationParams()
        parameters.nonlinearityType = kind
        return .layer(name, [input], [output], .activation(parameters))
    }

    static func reshape(_ name: String, _ input: String, _ output: String, to shape: [Int]) -> Self {
        var parameters = CoreMLReshapeLayerParams()
        parameters.targetShape = shape.map(Int64.init)
        return .layer(name, [input], [output], .reshape(parameters))
    }

    static func reduce(
        _ name: String, _ input: String, _ output: String, _ mode: CoreMLReduceLayerParams.ReduceOperation,
        along axis: CoreMLReduceLayerParams.ReduceAxis
    ) -> Self {
        var parameters = CoreMLReduceLayerParams()
        parameters.mode = mode
        parameters.axis = axis
        return .layer(name, [input], [output], .reduce(parameters))
    }

    /// `input × scale + bias`, each of `[C]` (one value a channel); without a bias, `input × scale`.
    static func scale(_ name: String, _ input: String, _ output: String, scale: [Float], bias: [Float] = []) -> Self {
        var parameters = CoreMLScaleLayerParams()
        parameters.shapeScale = [UInt64(scale.count)]
        parameters.scale.floatValue = scale
        parameters.hasBias_p = !bias.isEmpty
        if !bias.isEmpty {
            parameters.shapeBias = [UInt64(bias.count)]
            parameters.bias.floatValue = bias
        }
        return .layer(name, [input], [output], .scale(parameters))
    }

    /// `input + bias`, one value a channel.
    static func bias(_ name: String, _ input: String, _ output: String, _ bias: [Float]) -> Self {
        var parameters = CoreMLBiasLayerParams()
        parameters.shape = [UInt64(bias.count)]
        parameters.bias.floatValue = bias
        return .layer(name, [input], [output], .bias(parameters))
    }

    /// The product of `inputs`; of one input, it times `alpha`.
    static func multiply(_ name: String, _ inputs: [String], _ output: String, alpha: Float = 1) -> Self {
        var parameters = CoreMLMultiplyLayerParams()
        parameters.alpha = alpha
        return .layer(name, inputs, [output], .multiply(parameters))
    }

    static func add(_ name: String, _ inputs: [String], _ output: String) -> Self {
        .layer(name, inputs, [output], .add(.init()))
    }

    static func unary(
        _ name: String, _ input: String, _ output: String, _ operation: CoreMLUnaryFunctionLayerParams.Operation,
        epsilon: Float = 0, alpha: Float = 0
    ) -> Self {
        var parameters = CoreMLUnaryFunctionLayerParams()
        parameters.type = operation
        parameters.scale = 1
        parameters.epsilon = epsilon
        parameters.alpha = alpha
        return .layer(name, [input], [output], .unary(parameters))
    }

    /// `range` of `input` along `axis`.
    static func slice(
        _ name: String, _ input: String, _ output: String, along axis: CoreMLSliceLayerParams.SliceAxis = .channelAxis,
        _ range: Range<Int>
    ) -> Self {
        var parameters = CoreMLSliceLayerParams()
        parameters.startIndex = Int64(range.lowerBound)
        parameters.endIndex = Int64(range.upperBound)
        parameters.stride = 1
        parameters.axis = axis
        return .layer(name, [input], [output], .slice(parameters))
    }

    /// `values` as a blob of `shape` [C, H, W].
    static func constant(_ name: String, _ output: String, shape: [Int], _ values: [Float]) -> Self {
        var parameters = CoreMLLoadConstantLayerParams()
        parameters.shape = shape.map(UInt64.init)
        parameters.data.floatValue = values
        return .layer(name, [], [output], .loadConstant(parameters))
    }

    /// `inputs` one after another along C.
    static func concat(_ name: String, _ inputs: [String], _ output: String) -> Self {
        .layer(name, inputs, [output], .concat(.init()))
    }

    /// Core ML stores the weights `outputs × inputs`.
    static func innerProduct(_ name: String, _ input: String, _ output: String, _ weights: DenseWeights) -> Self {
        var parameters = CoreMLInnerProductLayerParams()
        parameters.inputChannels = UInt64(weights.inputs)
        parameters.outputChannels = UInt64(weights.outputs)
        parameters.hasBias_p = true
        parameters.weights.floatValue = weights.transposedWeight
        parameters.bias.floatValue = weights.bias
        return .layer(name, [input], [output], .innerProduct(parameters))
    }
}

extension DenseWeights {
    /// `weight` as `outputs × inputs`, row-major: the layout Core ML and ONNX's Gemm with transB use.
    var transposedWeight: [Float] {
        (0..<outputs).flatMap { output in (0..<inputs).map { input in weight[input * outputs + output] } }
    }
}
