import Foundation
import GestureCore
import GestureLearning
import SwiftProtobuf

/// A model's streaming step as an ONNX graph (opset 17): inputs `features` [1, window, features]
/// of raw features, `hidden_in` and `cell_in` [1, 1, units]; outputs `probabilities`
/// [1, classes], `hidden_out` and `cell_out` [1, 1, units], fed back as the next window's state
/// (zeros at the start of a stream). The feature normalization is folded into the first Gemm. A
/// model that rejects unknown motion has two more outputs: `rejection_margin` [1, classes], each
/// class's cosine distance to its nearest prototype less its limit, and `unknown` [1, 1], a bool:
/// whether the top class's margin is above 0, the window unknown motion. A model that also tests
/// the motion's statistics has a third state, `motion_in` [1, 2 × features + 1] (zeros at the
/// start) and `motion_out`, and its margin is the larger of the two tests'. A model with random
/// convolutions has a fourth, `recent_in` and `recent_count_in` (see `ONNXRandomConvolutions`).
public struct ONNXExport {
    public let model: GestureModel

    public static let opset: Int64 = 17
    /// ONNX's IR version of opset 17.
    static let irVersion: Int64 = 8

    public init(model: GestureModel) throws(InteropError) {
        try InteropError.checkExportable(model)
        self.model = model
    }

    public func serialized() -> [UInt8] {
        var file = ONNXModelProto()
        file.irVersion = Self.irVersion
        file.producerName = "GestureLab"
        file.producerVersion = gestureLabVersion
        file.opsetImport = [
            .with {
                $0.domain = ""
                $0.version = Self.opset
            }
        ]
        file.graph = graph
        file.metadataProps = metadata.map { key, value in
            .with {
                $0.key = key
                $0.value = value
            }
        }
        // Serializing a message built in memory, with every required field set, cannot fail.
        return try! file.serializedBytes()
    }

    private var metadata: [(String, String)] {
        [
            ("classes", model.classNames.joined(separator: ",")),
            ("features", model.featureNames.joined(separator: ",")),
            ("prediction_window", String(model.windowing.window)),
            ("sampling_rate", "\(model.samplingRate)"),
        ]
    }

    private var graph: ONNXGraphProto {
        let weights = model.weights
        let window = model.windowing.window, features = model.featureNames.count
        let units = weights.lstm.units, filters = weights.convolution.outputs
        let folded = FoldedConvolution(model: model)
        var graph = ONNXGraphProto()
        graph.name = "gesture_step"
        graph.input = [
            .tensor("features", [1, window, features]), .tensor("hidden_in", [1, 1, units]),
            .tensor("cell_in", [1, 1, units]),
        ]
        graph.output = [
            .tensor("probabilities", [1, weights.output.outputs]), .tensor("hidden_out", [1, 1, units]),
            .tensor("cell_out", [1, 1, units]),
        ]
        graph.initializer =
            [
                .int64s("window_shape", [1, Int64(window * features)]),
                .floats("convolution_weight", [Int64(filters), Int64(window * features)], folded.gemmWeight),
                .floats("convolution_bias", [Int64(filters)], folded.bias),
                .int64s("sequence_shape", [1, 1, Int64(filters)]),
                .int64s("state_shape", [1, Int64(units)]),
            ] + lstmInitializers(weights.lstm) + denseInitializers(weights)
        let rejection = model.exportedRejection.map(rejectionGraph)
        if rejection != nil {
            graph.output += [
                .tensor(RejectionOutput.onnxMargin, [1, model.classNames.count]),
                .tensor(RejectionOutput.onnxUnknown, [1, 1], type: .bool),
            ]
        }
        if let motion = model.exportedRejection?.motion {
            graph.input.append(.tensor("motion_in", [1, motion.center.count + 1]))
            graph.output.append(.tensor("motion_out", [1, motion.center.count + 1]))
        }
        graph.initializer += rejection?.initializers ?? []
        let randomConvolutions = model.randomConvolutions.map {
            ONNXRandomConvolutions(classifier: $0, window: window)
        }
        let convolutions = randomConvolutions?.graph(
            networkProbabilities: "network_probabilities", output: "probabilities")
        graph.input += randomConvolutions?.inputs ?? []
        graph.output += randomConvolutions?.outputs ?? []
        graph.initializer += convolutions?.initializers ?? []
        let network: [ONNXNodeProto] = [
            .node("Reshape", ["features", "window_shape"], ["window"]),
            .node("Gemm", ["window", "convolution_weight", "convolution_bias"], ["convolution"], transB: true),
            .node("Relu", ["convolution"], ["convolution_relu"]),
            .node("Reshape", ["convolution_relu", "sequence_shape"], ["sequence"]),
            .node(
                "LSTM", ["sequence", "lstm_W", "lstm_R", "lstm_B", "", "hidden_in", "cell_in"],
                ["", "hidden_out", "cell_out"], hiddenSize: units),
            .node("Reshape", ["hidden_out", "state_shape"], ["hidden"]),
            .node("Gemm", ["hidden", "dense_weight", "dense_bias"], ["dense"]),
            .node(
                "BatchNormalization", ["dense", "bn_scale", "bn_shift", "bn_mean", "bn_variance"], ["normalized"],
                epsilon: weights.batchNorm.epsilon),
            .node("Relu", ["normalized"], ["dense_relu"]),
            .node("Gemm", ["dense_relu", "output_weight", "output_bias"], ["logits"]),
            .node("Softmax", ["logits"], [convolutions == nil ? "probabilities" : "network_probabilities"]),
        ]
        graph.node = network + (convolutions?.nodes ?? []) + (rejection?.nodes ?? [])
        return graph
    }

    /// ONNX's gates are in the order input, output, forget, cell; W is [1, 4·units, inputs], R is
    /// [1, 4·units, units], B is the input biases then the recurrent biases (zeros here).
    private func lstmInitializers(_ lstm: LSTMWeights) -> [ONNXTensorProto] {
        let order: [LSTMWeights.Gate] = [.input, .output, .forget, .candidate]
        let units = Int64(lstm.units)
        return [
            .floats("lstm_W", [1, 4 * units, Int64(lstm.inputs)], order.flatMap(lstm.inputMatrix)),
            .floats("lstm_R", [1, 4 * units, units], order.flatMap(lstm.recurrentMatrix)),
            .floats("lstm_B", [1, 8 * units], order.flatMap(lstm.bias) + Array(repeating: 0, count: 4 * lstm.units)),
        ]
    }

    private func denseInitializers(_ weights: NetworkWeights) -> [ONNXTensorProto] {
        let batchNorm = weights.batchNorm, width = Int64(batchNorm.scale.count)
        return [
            .floats("dense_weight", [Int64(weights.dense.inputs), width], weights.dense.weight),
            .floats("dense_bias", [width], weights.dense.bias),
            .floats("bn_scale", [width], batchNorm.scale), .floats("bn_shift", [width], batchNorm.shift),
            .floats("bn_mean", [width], batchNorm.mean), .floats("bn_variance", [width], batchNorm.variance),
            .floats("output_weight", [width, Int64(weights.output.outputs)], weights.output.weight),
            .floats("output_bias", [Int64(weights.output.outputs)], weights.output.bias),
        ]
    }
}

extension FoldedConvolution {
    /// The kernel as `filters × (window · features)`, a window's values sample by sample.
    var gemmWeight: [Float] {
        (0..<filters).flatMap { filter in
            (0..<window).flatMap { sample in
                (0..<features).map { feature in kernel[(filter * features + feature) * window + sample] }
            }
        }
    }
}

extension ONNXValueInfoProto {
    static func tensor(_ name: String, _ shape: [Int], type: ONNXTensorProto.DataType = .float) -> Self {
        .with { value in
            value.name = name
            value.type.tensorType.elemType = Int32(type.rawValue)
            value.type.tensorType.shape.dim = shape.map { size in .with { $0.dimValue = Int64(size) } }
        }
    }
}

extension ONNXTensorProto {
    static func floats(_ name: String, _ dims: [Int64], _ values: [Float]) -> Self {
        precondition(dims.reduce(1, *) == values.count)
        return .with {
            $0.name = name
            $0.dims = dims
            $0.dataType = Int32(DataType.float.rawValue)
            $0.floatData = values
        }
    }

    /// A tensor of rank 0: an index that takes away the axis it gathers along.
    static func int64Scalar(_ name: String, _ value: Int64) -> Self {
        .with {
            $0.name = name
            $0.dataType = Int32(DataType.int64.rawValue)
            $0.int64Data = [value]
        }
    }

    static func int64s(_ name: String, _ values: [Int64]) -> Self {
        .with {
            $0.name = name
            $0.dims = [Int64(values.count)]
            $0.dataType = Int32(DataType.int64.rawValue)
            $0.int64Data = values
        }
    }
}

extension ONNXNodeProto {
    static func node(
        _ operator: String, _ inputs: [String], _ outputs: [String], transB: Bool = false, hiddenSize: Int? = nil,
        epsilon: Float? = nil, attributes: [ONNXAttributeProto] = []
    ) -> Self {
        .with { node in
            node.opType = `operator`
            node.name = outputs.first { !$0.isEmpty } ?? `operator`
            node.input = inputs
            node.output = outputs
            node.attribute = attributes
            if transB { node.attribute.append(.int("transB", 1)) }
            if let hiddenSize { node.attribute.append(.int("hidden_size", Int64(hiddenSize))) }
            if let epsilon {
                node.attribute.append(
                    .with {
                        $0.name = "epsilon"
                        $0.type = .float
                        $0.f = epsilon
                    })
            }
        }
    }
}

extension ONNXAttributeProto {
    static func int(_ name: String, _ value: Int64) -> Self {
        .with {
            $0.name = name
            $0.type = .int
            $0.i = value
        }
    }

    static func ints(_ name: String, _ values: [Int64]) -> Self {
        .with {
            $0.name = name
            $0.type = .ints
            $0.ints = values
        }
    }
}
