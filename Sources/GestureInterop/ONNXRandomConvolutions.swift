import GestureLearning

/// A model's random convolutions in its ONNX graph. A fourth state, `recent_in` [1, history,
/// features] (the slot's last samples, normalized, oldest first; zeros at the start) and
/// `recent_count_in` [1, 1] (how many of them are samples; 0 at the start), fed back from
/// `recent_out` and `recent_count_out`; the ridge's class probabilities averaged with the
/// network's. Every output a kernel compares with a bias is computed in the float operations
/// and order of `RandomConvolutions` (taps picked exactly, summed one Add at a time), so that the
/// counts above the biases are GestureLab's.
struct ONNXRandomConvolutions {
    let classifier: RandomConvolutionClassifier
    let window: Int

    private var history: Int { classifier.convolutions.history }
    private var features: Int { classifier.convolutions.channelCount }
    private var kernels: [RandomConvolutions.Kernel] { classifier.convolutions.kernels }

    var inputs: [ONNXValueInfoProto] {
        [.tensor("recent_in", [1, history, features]), .tensor("recent_count_in", [1, 1])]
    }

    var outputs: [ONNXValueInfoProto] {
        [.tensor("recent_out", [1, history, features]), .tensor("recent_count_out", [1, 1])]
    }

    private var groups: [(dilation: Int, kernels: Range<Int>)] { classifier.convolutions.dilationGroups }

    /// The nodes from the raw `features` and the network's probabilities to `output`, the mean of
    /// those and the ridge's scores.
    func graph(
        networkProbabilities: String, output: String
    ) -> (
        initializers: [ONNXTensorProto], nodes: [ONNXNodeProto]
    ) {
        var initializers = stateInitializers
        var nodes = stateNodes
        var groupFeatures: [String] = []
        for (index, group) in groups.enumerated() {
            let made = self.group(index, dilation: group.dilation, kernels: group.kernels)
            initializers += made.initializers
            nodes += made.nodes
            groupFeatures.append(made.features)
        }
        let ridge = classifier.ridge
        initializers += [
            .floats("rc_ridge_mean", [Int64(ridge.featureCount)], ridge.standardization.mean),
            .floats("rc_ridge_deviation", [Int64(ridge.featureCount)], ridge.standardization.deviation),
            .floats("rc_ridge_weight", [Int64(ridge.featureCount), Int64(ridge.classCount)], ridge.weights),
            .floats("rc_ridge_intercept", [Int64(ridge.classCount)], ridge.intercept),
            .floats("rc_two", [1], [2]),
        ]
        nodes += [
            .node("Concat", groupFeatures, ["rc_features"], attributes: [.int("axis", 1)]),
            .node("Sub", ["rc_features", "rc_ridge_mean"], ["rc_features_centered"]),
            .node("Div", ["rc_features_centered", "rc_ridge_deviation"], ["rc_features_standardized"]),
            .node(
                "Gemm", ["rc_features_standardized", "rc_ridge_weight", "rc_ridge_intercept"],
                [ridge.inverseTemperature == nil ? "rc_scores" : "rc_raw_scores"]),
        ]
        let calibration = calibrated("rc_raw_scores", as: "rc_scores")
        initializers += calibration.initializers
        nodes +=
            calibration.nodes + [
                .node("Add", [networkProbabilities, "rc_scores"], ["rc_sum"]),
                .node("Div", ["rc_sum", "rc_two"], [output]),
            ]
        return (initializers, nodes)
    }

    /// The ridge's probabilities: the softmax of its scores times its inverse temperature, or the
    /// scores themselves (no node) for a ridge from before calibration.
    private func calibrated(
        _ scores: String, as output: String
    ) -> (
        initializers: [ONNXTensorProto], nodes: [ONNXNodeProto]
    ) {
        guard let scale = classifier.ridge.inverseTemperature else { return ([], []) }
        return (
            [.floats("rc_inverse_temperature", [1], [scale])],
            [
                .node("Mul", [scores, "rc_inverse_temperature"], ["rc_scaled_scores"]),
                .node("Softmax", ["rc_scaled_scores"], [output]),
            ]
        )
    }

    /// The window normalized joins the slot's samples; the oldest beyond `history` leave; each
    /// kernel's sum of its channels over them, `rc_series` [1, kernels, history].
    private var stateInitializers: [ONNXTensorProto] {
        let normalization = classifier.normalization, kernelCount = kernels.count
        let channels = (0..<features).flatMap { feature in
            kernels.map { $0.channels.contains(feature) ? Float(1) : 0 }
        }
        return [
            .floats("rc_mean", [Int64(features)], normalization.mean),
            .floats("rc_deviation", [Int64(features)], normalization.deviation),
            .int64s("rc_kept_start", [Int64(window)]), .int64s("rc_kept_end", [Int64(history + window)]),
            .int64s("rc_time_axis", [1]),
            .floats("rc_window_samples", [1, 1], [Float(window)]), .floats("rc_history", [1, 1], [Float(history)]),
            .floats("rc_channels", [Int64(features), Int64(kernelCount)], channels),
        ]
    }

    private var stateNodes: [ONNXNodeProto] {
        [
            .node("Sub", ["features", "rc_mean"], ["rc_centered"]),
            .node("Div", ["rc_centered", "rc_deviation"], ["rc_window"]),
            .node("Concat", ["recent_in", "rc_window"], ["rc_joined"], attributes: [.int("axis", 1)]),
            .node("Slice", ["rc_joined", "rc_kept_start", "rc_kept_end", "rc_time_axis"], ["recent_out"]),
            .node("Add", ["recent_count_in", "rc_window_samples"], ["rc_count_sum"]),
            .node("Min", ["rc_count_sum", "rc_history"], ["recent_count_out"]),
            .node("Sub", ["rc_history", "recent_count_out"], ["rc_first_sample"]),
            .node("MatMul", ["recent_out", "rc_channels"], ["rc_summed"]),
            .node("Transpose", ["rc_summed"], ["rc_series"], attributes: [.ints("perm", [0, 2, 1])]),
        ]
    }

    /// The features of the kernels `range`, all of `dilation`: `rc_g<index>_features` [1, kernels × biases].
    private func group(
        _ index: Int, dilation: Int, kernels range: Range<Int>
    ) -> (
        initializers: [ONNXTensorProto], nodes: [ONNXNodeProto], features: String
    ) {
        let name = { (part: String) in "rc_g\(index)_\(part)" }
        let count = range.count, positions = history - 8 * dilation
        let biasCount = kernels[range.lowerBound].biases.count
        // Each kernel's taps weighted 2, as three one-hot columns over the nine taps.
        let heavy = kernels[range].flatMap { kernel in
            (0..<9).flatMap { tap in kernel.heavyTaps.map { $0 == tap ? Float(1) : 0 } }
        }
        var initializers: [ONNXTensorProto] = [
            .int64s(name("kernels_start"), [Int64(range.lowerBound)]),
            .int64s(name("kernels_end"), [Int64(range.upperBound)]), .int64s(name("kernel_axis"), [1]),
            .int64s(name("position_axis"), [2]), .int64s(name("tap_axis"), [3]),
            .floats(name("heavy"), [Int64(count), 9, 3], heavy),
            .floats(name("biases"), [1, Int64(count), Int64(biasCount), 1], kernels[range].flatMap(\.biases)),
            .floats(name("positions"), [Int64(positions)], (0..<positions).map(Float.init)),
            .floats(name("three"), [1], [3]), .floats(name("one"), [1, 1], [1]),
            .int64s(name("shape"), [1, Int64(count * biasCount)]),
        ]
        var nodes: [ONNXNodeProto] = [
            .node(
                "Slice", ["rc_series", name("kernels_start"), name("kernels_end"), name("kernel_axis")],
                [name("series")])
        ]
        for tap in 0..<9 {
            initializers += [
                .int64s(name("tap\(tap)_start"), [Int64(tap * dilation)]),
                .int64s(name("tap\(tap)_end"), [Int64(tap * dilation + positions)]),
            ]
            nodes += [
                .node(
                    "Slice", [name("series"), name("tap\(tap)_start"), name("tap\(tap)_end"), name("position_axis")],
                    [name("tap\(tap)")]),
                .node("Unsqueeze", [name("tap\(tap)"), name("tap_axis")], [name("tap\(tap)_column")]),
            ]
        }
        nodes += (1..<9).map { tap in
            .node("Add", [tap == 1 ? name("tap0") : name("all\(tap - 1)"), name("tap\(tap)")], [name("all\(tap)")])
        }
        nodes += [
            .node("Concat", (0..<9).map { name("tap\($0)_column") }, [name("taps")], attributes: [.int("axis", 3)]),
            .node("MatMul", [name("taps"), name("heavy")], [name("heavy_taps")]),
        ]
        for (index, tap) in ["a", "b", "c"].enumerated() {
            initializers.append(.int64Scalar(name("\(tap)_index"), Int64(index)))
            nodes.append(
                .node(
                    "Gather", [name("heavy_taps"), name("\(tap)_index")], [name(tap)], attributes: [.int("axis", 3)]))
        }
        nodes += [
            .node("Add", [name("a"), name("b")], [name("ab")]),
            .node("Add", [name("ab"), name("c")], [name("abc")]),
            .node("Mul", [name("abc"), name("three")], [name("tripled")]),
            .node("Sub", [name("tripled"), name("all8")], [name("outputs")]),
            .node("Unsqueeze", [name("outputs"), name("position_axis")], [name("outputs_by_bias")]),
            .node("Greater", [name("outputs_by_bias"), name("biases")], [name("above")]),
            .node("Cast", [name("above")], [name("above_counted")], attributes: [.int("to", 1)]),
            .node("GreaterOrEqual", [name("positions"), "rc_first_sample"], [name("valid")]),
            .node("Cast", [name("valid")], [name("valid_counted")], attributes: [.int("to", 1)]),
            .node("Mul", [name("above_counted"), name("valid_counted")], [name("above_valid")]),
            .node(
                "ReduceSum", [name("above_valid"), name("tap_axis")], [name("counts")],
                attributes: [.int("keepdims", 0)]),
            .node("ReduceSum", [name("valid_counted")], [name("valid_count")], attributes: [.int("keepdims", 1)]),
            .node("Max", [name("valid_count"), name("one")], [name("denominator")]),
            .node("Div", [name("counts"), name("denominator")], [name("shares")]),
            .node("Reshape", [name("shares"), name("shape")], [name("features")]),
        ]
        return (initializers, nodes, name("features"))
    }
}
