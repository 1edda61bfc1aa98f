import GestureLearning

extension GestureModel {
    /// The rejection an export carries: none for a model without one (or without prototypes,
    /// which rejects nothing).
    var exportedRejection: Rejection? { rejection.flatMap { $0.labels.isEmpty ? nil : $0 } }
}

extension Rejection {
    /// A limit for each of `classes` classes: the model's, or for a class that is never rejected
    /// (past the model's limits, or without prototypes) 3, beyond any cosine distance.
    func limits(classes: Int) -> [Float] {
        (0..<classes).map { $0 < limits.count && labels.contains($0) ? limits[$0] : 3 }
    }

    /// Its prototypes padded (`padded`); a class without any is at cosine distance 1 from any
    /// window, within its limit of 3.
    func paddedPrototypes(classes: Int) -> (values: [Float], perClass: Int) {
        padded(prototypes, labels: labels, dimension: dimension, classes: classes)
    }
}

/// Each class's prototypes (rows of `dimension`, of the classes `labels` gives), repeated up to as
/// many as the class with the most has (a repeat changes no nearest distance), zeros for a class
/// without any: `classes × perClass × dimension`, for a graph that takes the nearest of each class's
/// `perClass` distances.
func padded(
    _ prototypes: [Float], labels: [Int], dimension: Int, classes: Int
) -> (values: [Float], perClass: Int) {
    let rows = (0..<classes).map { label in labels.indices.filter { labels[$0] == label } }
    let perClass = max(rows.map(\.count).max() ?? 0, 1)
    let values = rows.flatMap { own in
        (0..<perClass).flatMap { index -> [Float] in
            guard !own.isEmpty else { return Array(repeating: 0, count: dimension) }
            let row = own[index % own.count]
            return Array(prototypes[row * dimension..<(row + 1) * dimension])
        }
    }
    return (values, perClass)
}

/// The names of the extra outputs and layers.
enum RejectionOutput {
    /// Core ML: each class's cosine distance to its nearest prototype minus its limit.
    static let coreMLMargin = "rejectionMargin"
    /// Core ML's rejection layers' names start with this; the import leaves them out.
    static let coreMLLayerPrefix = "rejection_"
    /// Core ML: the motion's state, fed back from window to window as the LSTM's is.
    static let coreMLMotionIn = "motionIn"
    static let coreMLMotionOut = "motionOut"
    static let onnxMargin = "rejection_margin"
    static let onnxUnknown = "unknown"
}

extension CoreMLExport {
    /// The margin of each class, from the embedding: L2-normalized, its similarity to every padded
    /// prototype taken from 1 minus the class's limit, and the nearest of each class's. With a test
    /// of the motion's statistics, the larger of that margin and the motion's.
    func rejectionLayers(_ rejection: Rejection) -> [CoreMLNeuralNetworkLayer] {
        let classes = model.classNames.count
        let (prototypes, perClass) = rejection.paddedPrototypes(classes: classes)
        let limits = rejection.limits(classes: classes)
        let margins = DenseWeights(
            inputs: rejection.dimension, outputs: classes * perClass,
            weight: (0..<rejection.dimension).flatMap { input in
                (0..<classes * perClass).map { -prototypes[$0 * rejection.dimension + input] }
            },
            bias: (0..<classes * perClass).map { 1 - limits[$0 / perClass] })
        var normalize = CoreMLL2NormalizeLayerParams()
        normalize.epsilon = 1e-12
        let prefix = RejectionOutput.coreMLLayerPrefix
        let embedding = rejection.embedding == .lstm ? "dense0_in" : "dense1_in"
        let margin = rejection.motion == nil ? RejectionOutput.coreMLMargin : "rejection_embedding_margin"
        let layers: [CoreMLNeuralNetworkLayer] = [
            .layer("\(prefix)normalize", [embedding], ["rejection_unit"], .l2Normalize(normalize)),
            .innerProduct("\(prefix)margins", "rejection_unit", "rejection_margins", margins),
            .reshape("\(prefix)by_class", "rejection_margins", "rejection_by_class", to: [classes, perClass, 1]),
            .reduce("\(prefix)nearest", "rejection_by_class", margin, .min, along: .h),
        ]
        guard let motion = rejection.motion else { return layers }
        // A window is unknown when either test finds it beyond: the larger of the two margins.
        let both = CoreMLNeuralNetworkLayer.layer(
            "\(prefix)either", [margin, "rejection_motion_margin"], [RejectionOutput.coreMLMargin], .max(.init()))
        return layers + motionAverageLayers(motion) + motionMarginLayers(motion) + [both]
    }

    /// The motion's state moved toward this window's, as ONNX's `motionGraph`: `motionIn` [2 ×
    /// features + 1] (the slot's moving averages of each normalized feature's mean and mean square,
    /// and their weight) kept by the decay, this window's added by the rest, as `motionOut`. The
    /// features come in raw: the layers normalize them.
    private func motionAverageLayers(_ motion: MotionRejection) -> [CoreMLNeuralNetworkLayer] {
        let normalization = model.normalization
        let name = { (blob: String) in RejectionOutput.coreMLLayerPrefix + blob }
        return [
            .scale(
                name("motion_normalize"), "conv_in", "motion_normalized",
                scale: normalization.deviation.map { 1 / $0 },
                bias: zip(normalization.mean, normalization.deviation).map { -$0 / $1 }),
            .multiply(name("motion_square"), ["motion_normalized", "motion_normalized"], "motion_normalized_squares"),
            .reduce(name("motion_window_means"), "motion_normalized", "motion_window_means", .avg, along: .w),
            .reduce(
                name("motion_window_squares"), "motion_normalized_squares", "motion_window_squares", .avg, along: .w),
            .constant(name("motion_one"), "motion_one", shape: [1, 1, 1], [1]),
            .concat(
                name("motion_window"), ["motion_window_means", "motion_window_squares", "motion_one"], "motion_window"),
            .multiply(name("motion_keep"), [RejectionOutput.coreMLMotionIn], "motion_kept", alpha: motion.decay),
            .multiply(name("motion_add"), ["motion_window"], "motion_added", alpha: 1 - motion.decay),
            .add(name("motion_out"), ["motion_kept", "motion_added"], RejectionOutput.coreMLMotionOut),
        ]
    }

    /// Each class's distance from the statistics `motionOut` holds (the means and spreads,
    /// standardized) to its nearest prototype less its limit, `rejection_motion_margin` [classes].
    private func motionMarginLayers(_ motion: MotionRejection) -> [CoreMLNeuralNetworkLayer] {
        let classes = model.classNames.count, features = model.featureNames.count
        let (prototypes, perClass) = motion.paddedPrototypes(classes: classes)
        let dimension = motion.center.count
        let name = { (blob: String) in RejectionOutput.coreMLLayerPrefix + blob }
        let state = RejectionOutput.coreMLMotionOut
        return [
            .slice(name("motion_mean_sums"), state, "motion_mean_sums", 0..<features),
            .slice(name("motion_square_sums"), state, "motion_square_sums", features..<2 * features),
            .slice(name("motion_weight"), state, "motion_weight", 2 * features..<2 * features + 1),
            // 1 / (weight + the smallest float): ONNX's division by the weight, at least the smallest float.
            .unary(
                name("motion_per_weight"), "motion_weight", "motion_per_weight", .inverse,
                epsilon: .leastNormalMagnitude),
            .multiply(name("motion_means"), ["motion_mean_sums", "motion_per_weight"], "motion_means"),
            .multiply(name("motion_squares"), ["motion_square_sums", "motion_per_weight"], "motion_squares"),
            .multiply(name("motion_means_squared"), ["motion_means", "motion_means"], "motion_means_squared"),
            .multiply(name("motion_negate"), ["motion_means_squared"], "motion_minus_means_squared", alpha: -1),
            .add(name("motion_variance"), ["motion_squares", "motion_minus_means_squared"], "motion_variance_or_less"),
            .activation(name("motion_at_least_0"), "motion_variance_or_less", "motion_variance", .reLu(.init())),
            .unary(name("motion_spreads"), "motion_variance", "motion_spreads", .sqrt),
            .concat(name("motion_statistics"), ["motion_means", "motion_spreads"], "motion_statistics"),
            .scale(
                name("motion_standardize"), "motion_statistics", "motion_standardized",
                scale: motion.scale.map { 1 / $0 }, bias: zip(motion.center, motion.scale).map { -$0 / $1 }),
            .reshape(name("motion_row"), "motion_standardized", "motion_row", to: [1, dimension, 1]),
            .constant(
                name("motion_prototypes"), "motion_negated_prototypes", shape: [classes * perClass, dimension, 1],
                prototypes.map { -$0 }),
            .add(name("motion_differences"), ["motion_negated_prototypes", "motion_row"], "motion_differences"),
            .reduce(
                name("motion_squared_distances"), "motion_differences", "motion_squared_distances", .sumsquare,
                along: .h),
            .reshape(
                name("motion_by_class"), "motion_squared_distances", "motion_class_distances",
                to: [classes, perClass, 1]),
            .reduce(
                name("motion_nearest_squared"), "motion_class_distances", "motion_nearest_squared", .min, along: .h),
            .unary(name("motion_nearest"), "motion_nearest_squared", "motion_nearest", .sqrt),
            .bias(
                name("motion_margin"), "motion_nearest", "rejection_motion_margin",
                motion.limits(classes: classes).map { -$0 }),
        ]
    }
}

extension ONNXExport {
    /// The margin of each class from the embedding, `[1, classes]`, and whether the top class's is
    /// positive, `[1, 1]`: the embedding's similarity to every padded prototype (over its norm), the
    /// nearest distance of each class's, less the class's limit.
    func rejectionGraph(_ rejection: Rejection) -> (initializers: [ONNXTensorProto], nodes: [ONNXNodeProto]) {
        let classes = model.classNames.count
        let (prototypes, perClass) = rejection.paddedPrototypes(classes: classes)
        let embedding = rejection.embedding == .lstm ? "hidden" : "dense_relu"
        let initializers: [ONNXTensorProto] = [
            .floats(
                "rejection_prototypes", [Int64(classes * perClass), Int64(rejection.dimension)], prototypes),
            .floats("rejection_limits", [1, Int64(classes)], rejection.limits(classes: classes)),
            .floats("rejection_smallest_norm", [1], [.leastNormalMagnitude]),
            .floats("rejection_one", [1], [1]), .floats("rejection_zero", [1], [0]),
            .int64s("rejection_by_class", [1, Int64(classes), Int64(perClass)]),
        ]
        let margins: [ONNXNodeProto] = [
            .node("ReduceSumSquare", [embedding], ["rejection_norm_squared"], attributes: [.ints("axes", [1])]),
            .node("Sqrt", ["rejection_norm_squared"], ["rejection_norm_or_zero"]),
            .node("Max", ["rejection_norm_or_zero", "rejection_smallest_norm"], ["rejection_norm"]),
            .node("Gemm", [embedding, "rejection_prototypes"], ["rejection_products"], transB: true),
            .node("Div", ["rejection_products", "rejection_norm"], ["rejection_similarities"]),
            .node("Sub", ["rejection_one", "rejection_similarities"], ["rejection_distances"]),
            .node("Reshape", ["rejection_distances", "rejection_by_class"], ["rejection_class_distances"]),
            .node(
                "ReduceMin", ["rejection_class_distances"], ["rejection_nearest"],
                attributes: [.ints("axes", [2]), .int("keepdims", 0)]),
            .node(
                "Sub", ["rejection_nearest", "rejection_limits"],
                [rejection.motion == nil ? RejectionOutput.onnxMargin : "rejection_embedding_margin"]),
        ]
        let decision: [ONNXNodeProto] = [
            .node("Greater", [RejectionOutput.onnxMargin, "rejection_zero"], ["rejection_beyond"]),
            .node("ArgMax", ["probabilities"], ["top"], attributes: [.int("axis", 1), .int("keepdims", 0)]),
            .node("Gather", ["rejection_beyond", "top"], [RejectionOutput.onnxUnknown], attributes: [.int("axis", 1)]),
        ]
        guard let motion = rejection.motion else { return (initializers, margins + decision) }
        // A window is unknown when either test finds it beyond: the larger of the two margins.
        let both = ONNXNodeProto.node(
            "Max", ["rejection_embedding_margin", "motion_margin"], [RejectionOutput.onnxMargin])
        let motionGraph = self.motionGraph(motion)
        return (initializers + motionGraph.initializers, margins + motionGraph.nodes + [both] + decision)
    }

    /// The test of the motion's statistics: `motion_in` [1, 2 × features + 1] (the slot's moving
    /// averages of each normalized feature's mean and mean square, and their weight) moved toward
    /// this window's as `motion_out`, and each class's distance from the statistics to its nearest
    /// prototype less its limit, `motion_margin` [1, classes].
    func motionGraph(_ motion: MotionRejection) -> (initializers: [ONNXTensorProto], nodes: [ONNXNodeProto]) {
        let classes = model.classNames.count, features = Int64(model.featureNames.count)
        let (prototypes, perClass) = motion.paddedPrototypes(classes: classes)
        let dimension = Int64(motion.center.count)
        let initializers: [ONNXTensorProto] = [
            .floats("motion_feature_mean", [features], model.normalization.mean),
            .floats("motion_feature_deviation", [features], model.normalization.deviation),
            .floats("motion_decay", [1], [motion.decay]), .floats("motion_keep", [1], [1 - motion.decay]),
            .floats("motion_one", [1, 1], [1]), .floats("motion_zero", [1], [0]),
            .floats("motion_smallest_weight", [1], [.leastNormalMagnitude]),
            .int64s("motion_means", [0]), .int64s("motion_squares", [features]),
            .int64s("motion_weight_at", [2 * features]), .int64s("motion_end", [2 * features + 1]),
            .int64s("motion_axis", [1]),
            .floats("motion_center", [1, dimension], motion.center),
            .floats("motion_scale", [1, dimension], motion.scale),
            .floats("motion_prototypes", [Int64(classes * perClass), dimension], prototypes),
            .floats("motion_limits", [1, Int64(classes)], motion.limits(classes: classes)),
            .int64s("motion_by_class", [1, Int64(classes), Int64(perClass)]),
        ]
        let slice = { (name: String, from: String, to: String) -> ONNXNodeProto in
            .node("Slice", ["motion_out", from, to, "motion_axis"], [name])
        }
        let nodes: [ONNXNodeProto] = [
            .node("Sub", ["features", "motion_feature_mean"], ["motion_centred"]),
            .node("Div", ["motion_centred", "motion_feature_deviation"], ["motion_normalized"]),
            .node("Mul", ["motion_normalized", "motion_normalized"], ["motion_normalized_squares"]),
            .node(
                "ReduceMean", ["motion_normalized"], ["motion_window_means"],
                attributes: [.ints("axes", [1]), .int("keepdims", 0)]),
            .node(
                "ReduceMean", ["motion_normalized_squares"], ["motion_window_squares"],
                attributes: [.ints("axes", [1]), .int("keepdims", 0)]),
            .node(
                "Concat", ["motion_window_means", "motion_window_squares", "motion_one"], ["motion_window"],
                attributes: [.int("axis", 1)]),
            .node("Mul", ["motion_in", "motion_decay"], ["motion_kept"]),
            .node("Mul", ["motion_window", "motion_keep"], ["motion_added"]),
            .node("Add", ["motion_kept", "motion_added"], ["motion_out"]),
            slice("motion_mean_sums", "motion_means", "motion_squares"),
            slice("motion_square_sums", "motion_squares", "motion_weight_at"),
            slice("motion_weight_or_zero", "motion_weight_at", "motion_end"),
            .node("Max", ["motion_weight_or_zero", "motion_smallest_weight"], ["motion_weight"]),
            .node("Div", ["motion_mean_sums", "motion_weight"], ["motion_means_now"]),
            .node("Div", ["motion_square_sums", "motion_weight"], ["motion_squares_now"]),
            .node("Mul", ["motion_means_now", "motion_means_now"], ["motion_means_squared"]),
            .node("Sub", ["motion_squares_now", "motion_means_squared"], ["motion_variance_or_less"]),
            .node("Max", ["motion_variance_or_less", "motion_zero"], ["motion_variance"]),
            .node("Sqrt", ["motion_variance"], ["motion_spreads"]),
            .node(
                "Concat", ["motion_means_now", "motion_spreads"], ["motion_statistics"], attributes: [.int("axis", 1)]),
            .node("Sub", ["motion_statistics", "motion_center"], ["motion_offsets"]),
            .node("Div", ["motion_offsets", "motion_scale"], ["motion_standardized"]),
            .node("Sub", ["motion_standardized", "motion_prototypes"], ["motion_differences"]),
            .node(
                "ReduceSumSquare", ["motion_differences"], ["motion_squared_distances"],
                attributes: [.ints("axes", [1]), .int("keepdims", 0)]),
            .node("Reshape", ["motion_squared_distances", "motion_by_class"], ["motion_class_distances"]),
            .node(
                "ReduceMin", ["motion_class_distances"], ["motion_nearest_squared"],
                attributes: [.ints("axes", [2]), .int("keepdims", 0)]),
            .node("Sqrt", ["motion_nearest_squared"], ["motion_nearest"]),
            .node("Sub", ["motion_nearest", "motion_limits"], ["motion_margin"]),
        ]
        return (initializers, nodes)
    }
}

extension MotionRejection {
    /// A limit for each of `classes` classes, the largest float for a class never rejected.
    func limits(classes: Int) -> [Float] {
        (0..<classes).map { $0 < limits.count && labels.contains($0) ? limits[$0] : .greatestFiniteMagnitude }
    }

    /// Its prototypes padded (`padded`); a class without any has the largest float as its limit.
    func paddedPrototypes(classes: Int) -> (values: [Float], perClass: Int) {
        padded(prototypes, labels: labels, dimension: center.count, classes: classes)
    }
}
