import GestureLearning

/// A model's random convolutions in its Core ML network, as `ONNXRandomConvolutions` has them in
/// ONNX: a fourth state, `recentIn` [history, 1, features] (the slot's last samples, normalized,
/// oldest first; zeros at the start) and `recentCountIn` [1] (how many of them are samples; 0 at
/// the start), fed back from `recentOut` and `recentCountOut`; the ridge's class scores averaged
/// with the network's probabilities. Every output compared with a bias is made by elementwise
/// layers in the float operations and order of `RandomConvolutions` (channels and taps added one
/// at a time, a kernel's taps weighted 2 picked by products with 1 and 0), and compared by a step
/// of the exact difference, so that the counts above the biases are GestureLab's: an output equal
/// to a bias (the biases are outputs of the training windows) stays uncounted.
///
/// Only specification version 1 layers: version 4 has division and comparisons, but Core ML's
/// validator then wants N-dimensional arrays (`EXACT_ARRAY_MAPPING`) throughout, which the
/// network's layers, the book's app and the import do not use. Version 1 has no division, so the
/// samples are divided by the deviations as `quotient` shows.
struct CoreMLRandomConvolutions {
    /// Its layers' names start with this; the import leaves them out.
    static let layerPrefix = "random_convolutions_"
    static let recentIn = "recentIn"
    static let recentCountIn = "recentCountIn"
    static let recentOut = "recentOut"
    static let recentCountOut = "recentCountOut"

    let classifier: RandomConvolutionClassifier
    let window: Int

    private var history: Int { classifier.convolutions.history }
    private var features: Int { classifier.convolutions.channelCount }
    private var kernels: [RandomConvolutions.Kernel] { classifier.convolutions.kernels }

    var inputs: [CoreMLFeatureDescription] {
        [
            .array(
                Self.recentIn, shape: [history, 1, features],
                about: "The last \(history) samples, normalized, oldest first (zeros at the start)", optional: true),
            .array(
                Self.recentCountIn, shape: [1], about: "How many of recentIn are samples (0 at the start)",
                optional: true),
        ]
    }

    var outputs: [CoreMLFeatureDescription] {
        [
            .array(
                Self.recentOut, shape: [history, 1, features],
                about: "The last samples, normalized: feed them back with the next window"),
            .array(Self.recentCountOut, shape: [1], about: "How many of recentOut are samples: feed it back"),
        ]
    }

    /// The layers from the window (`conv_in`, [features, 1, window]) and the network's
    /// probabilities to `output`, the mean of those and the ridge's scores.
    func layers(window input: String, networkProbabilities: String, output: String) -> [CoreMLNeuralNetworkLayer] {
        var sums = ChannelSums()
        var layers = stateLayers(input)
        var shares: [String] = [], columns: [Int] = []
        let biasStarts = kernels.reduce(into: [0]) { $0.append($0.last! + $1.biases.count) }
        for (index, group) in groups.enumerated() {
            let series = kernels[group.kernels].map { sums.blob(of: $0.channels, layers: &layers) }
            layers += self.group(index, dilation: group.dilation, kernels: group.kernels, series: series)
            for bias in kernels[group.kernels.lowerBound].biases.indices {
                shares.append(blob(index, "shares\(bias)"))
                columns += group.kernels.map { biasStarts[$0] + bias }
            }
        }
        return layers
            + ridgeLayers(shares, columns: columns, networkProbabilities: networkProbabilities, output: output)
    }

    private var groups: [(dilation: Int, kernels: Range<Int>)] { classifier.convolutions.dilationGroups }

    /// The window normalized joins the slot's samples; the oldest beyond `history` leave:
    /// `recentOut`, and `rc_recent` [features, 1, history], a feature a channel.
    private func stateLayers(_ input: String) -> [CoreMLNeuralNetworkLayer] {
        let normalization = classifier.normalization
        var count = CoreMLAddLayerParams()
        count.alpha = Float(window)
        return [
            .bias(name("center"), input, "rc_centered", normalization.mean.map { -$0 })
        ] + quotient("rc_centered", by: normalization.deviation, as: "rc_window") + [
            .permute(name("window_by_time"), "rc_window", "rc_window_by_time", axes: [0, 3, 2, 1]),
            .concat(name("joined"), [Self.recentIn, "rc_window_by_time"], "rc_joined"),
            .slice(name("kept"), "rc_joined", Self.recentOut, window..<history + window),
            .layer(name("count_sum"), [Self.recentCountIn], ["rc_count_sum"], .add(count)),
            .constant(name("history"), "rc_history", shape: [1, 1, 1], [Float(history)]),
            .layer(name("count"), ["rc_count_sum", "rc_history"], [Self.recentCountOut], .min(.init())),
            .permute(name("by_feature"), Self.recentOut, "rc_recent", axes: [0, 3, 2, 1]),
        ]
    }

    /// The features of the kernels `range`, all of `dilation`, summing the channels `series`:
    /// `rc_g<index>_shares<bias>` [kernels, 1, 1], for each of their biases.
    private func group(
        _ index: Int, dilation: Int, kernels range: Range<Int>, series: [String]
    ) -> [CoreMLNeuralNetworkLayer] {
        let blob = { (part: String) in self.blob(index, part) }
        let layerName = { (part: String) in self.name("g\(index)_\(part)") }
        let positions = history - 8 * dilation
        var layers = [concatenated(layerName("series"), series, blob("series"))]
        layers += (0..<9).map { tap in
            .slice(
                layerName("tap\(tap)"), blob("series"), blob("tap\(tap)"), along: .widthAxis,
                tap * dilation..<tap * dilation + positions)
        }
        layers += added((0..<9).map { blob("tap\($0)") }, as: blob("all"), name: layerName("all"))
        // Each kernel's own heavy tap, the sum of every tap times 1 for its own and 0 for the others.
        for heavy in 0..<3 {
            let taps = Set(kernels[range].map { $0.heavyTaps[heavy] }).sorted()
            layers += taps.map { tap in
                .scale(
                    layerName("heavy\(heavy)_tap\(tap)"), blob("tap\(tap)"), blob("heavy\(heavy)_tap\(tap)"),
                    scale: kernels[range].map { $0.heavyTaps[heavy] == tap ? 1 : 0 })
            }
            layers += added(
                taps.map { blob("heavy\(heavy)_tap\($0)") }, as: blob("heavy\(heavy)"), name: layerName("heavy\(heavy)")
            )
        }
        var fromCount = CoreMLAddLayerParams()
        fromCount.alpha = Float(-8 * dilation)
        layers += [
            .add(layerName("heavy01"), [blob("heavy0"), blob("heavy1")], blob("heavy01")),
            .add(layerName("heavy"), [blob("heavy01"), blob("heavy2")], blob("heavy")),
            .multiply(layerName("tripled"), [blob("heavy")], blob("tripled"), alpha: 3),
            .multiply(layerName("minus_all"), [blob("all")], blob("minus_all"), alpha: -1),
            .add(layerName("outputs"), [blob("tripled"), blob("minus_all")], blob("outputs")),
            // Position p (of the last `history` samples) counts once the stream has its history − p samples.
            .constant(
                layerName("needed"), blob("needed"), shape: [1, 1, positions],
                (0..<positions).map { Float($0 - history) + 0.5 }),
            .add(layerName("filled"), [blob("needed"), Self.recentCountOut], blob("filled")),
        ]
        layers += step(layerName("valid"), blob("filled"), blob("valid"))
        layers += [
            .layer(layerName("valid_count"), [Self.recentCountOut], [blob("valid_count")], .add(fromCount)),
            .unary(layerName("denominator"), blob("valid_count"), blob("denominator"), .threshold, alpha: 1),
            .unary(
                layerName("per_position"), blob("denominator"), blob("per_position"), .inverse,
                epsilon: .leastNormalMagnitude),
        ]
        for bias in kernels[range.lowerBound].biases.indices {
            let part = { (what: String) in "\(what)\(bias)" }
            layers.append(
                .bias(
                    layerName(part("beyond")), blob("outputs"), blob(part("beyond")),
                    kernels[range].map { -$0.biases[bias] }))
            layers += step(layerName(part("above")), blob(part("beyond")), blob(part("above")))
            layers += [
                .multiply(layerName(part("above_valid")), [blob(part("above")), blob("valid")], blob(part("counted"))),
                .reduce(layerName(part("counts")), blob(part("counted")), blob(part("counts")), .sum, along: .w),
                .multiply(
                    layerName(part("shares")), [blob(part("counts")), blob("per_position")], blob(part("shares"))),
            ]
        }
        return layers
    }

    /// The features standardized, through the ridge, averaged with the network's probabilities;
    /// `columns` gives the ridge's feature of each of `shares`' rows.
    private func ridgeLayers(
        _ shares: [String], columns: [Int], networkProbabilities: String, output: String
    ) -> [CoreMLNeuralNetworkLayer] {
        let ridge = classifier.ridge, classes = ridge.classCount
        let weights = DenseWeights(
            inputs: columns.count, outputs: classes,
            weight: columns.flatMap { column in (0..<classes).map { ridge.weights[column * classes + $0] } },
            bias: ridge.intercept)
        return [
            concatenated(name("features"), shares, "rc_features"),
            .bias(
                name("ridge_center"), "rc_features", "rc_features_centered",
                columns.map { -ridge.standardization.mean[$0] }),
            .scale(
                name("ridge_standardize"), "rc_features_centered", "rc_standardized",
                scale: columns.map { 1 / ridge.standardization.deviation[$0] }),
            .innerProduct(
                name("ridge"), "rc_standardized", ridge.inverseTemperature == nil ? "rc_scores" : "rc_raw_scores",
                weights),
        ]
            + calibrated("rc_raw_scores", as: "rc_scores") + [
                .add(name("sum"), [networkProbabilities, "rc_scores"], "rc_sum"),
                .multiply(name("average"), ["rc_sum"], output, alpha: 0.5),
            ]
    }

    /// The ridge's probabilities: the softmax of its scores times its inverse temperature, or the
    /// scores themselves (no layer) for a ridge from before calibration.
    private func calibrated(_ scores: String, as output: String) -> [CoreMLNeuralNetworkLayer] {
        guard let scale = classifier.ridge.inverseTemperature else { return [] }
        return [
            .multiply(name("calibrate"), [scores], "rc_scaled_scores", alpha: scale),
            .layer(name("softmax"), ["rc_scaled_scores"], [output], .softmax(.init())),
        ]
    }

    /// `blobs` added one at a time, the first to the second, that sum to the third…, as `output`.
    private func added(_ blobs: [String], as output: String, name: String) -> [CoreMLNeuralNetworkLayer] {
        guard blobs.count > 1 else { return [.multiply(name, blobs, output)] }
        return (1..<blobs.count).map { index in
            .add(
                "\(name)\(index)", [index == 1 ? blobs[0] : "\(output)\(index - 1)", blobs[index]],
                index == blobs.count - 1 ? output : "\(output)\(index)")
        }
    }

    /// `dividend` divided by `divisors` (one a channel) as GestureLab divides, with no division
    /// layer: the product with each divisor's reciprocal, corrected twice by the exact remainder
    /// (the product of quotient and divisor exactly, as a sum of two floats by Dekker's splitting
    /// of each into halves of 12 bits) times the reciprocal.
    private func quotient(_ dividend: String, by divisors: [Float], as output: String) -> [CoreMLNeuralNetworkLayer] {
        let reciprocals = divisors.map { 1 / $0 }, halves = divisors.map(\.splitInHalves)
        let name = { (part: String) in self.name("quotient_\(part)") }
        let minus = { (blob: String) in
            CoreMLNeuralNetworkLayer.multiply(name("minus_\(blob)"), [blob], "\(blob)_negated", alpha: -1)
        }
        var layers: [CoreMLNeuralNetworkLayer] = [
            .scale(name("estimate"), dividend, "rc_quotient0", scale: reciprocals)
        ]
        for step in 1...2 {
            let blob = { (part: String) in "rc_quotient\(step)_\(part)" }
            let estimate = "rc_quotient\(step - 1)"
            layers += [
                .multiply(name("\(step)_spread"), [estimate], blob("spread"), alpha: 4097),
                minus(estimate),
                .add(name("\(step)_spread_less"), [blob("spread"), "\(estimate)_negated"], blob("spread_less")),
                minus(blob("spread_less")),
                .add(name("\(step)_high"), [blob("spread"), blob("spread_less") + "_negated"], blob("high")),
                minus(blob("high")),
                .add(name("\(step)_low"), [estimate, blob("high") + "_negated"], blob("low")),
                .scale(name("\(step)_product"), estimate, blob("product"), scale: divisors),
                minus(blob("product")),
                .scale(name("\(step)_high_high"), blob("high"), blob("high_high"), scale: halves.map(\.high)),
                .add(name("\(step)_error1"), [blob("high_high"), blob("product") + "_negated"], blob("error1")),
                .scale(name("\(step)_high_low"), blob("high"), blob("high_low"), scale: halves.map(\.low)),
                .add(name("\(step)_error2"), [blob("error1"), blob("high_low")], blob("error2")),
                .scale(name("\(step)_low_high"), blob("low"), blob("low_high"), scale: halves.map(\.high)),
                .add(name("\(step)_error3"), [blob("error2"), blob("low_high")], blob("error3")),
                .scale(name("\(step)_low_low"), blob("low"), blob("low_low"), scale: halves.map(\.low)),
                .add(name("\(step)_error"), [blob("error3"), blob("low_low")], blob("error")),
                .add(name("\(step)_remainder1"), [dividend, blob("product") + "_negated"], blob("remainder1")),
                minus(blob("error")),
                .add(name("\(step)_remainder"), [blob("remainder1"), blob("error") + "_negated"], blob("remainder")),
                .scale(name("\(step)_correction"), blob("remainder"), blob("correction"), scale: reciprocals),
                .add(name("\(step)"), [estimate, blob("correction")], step == 2 ? output : "rc_quotient\(step)"),
            ]
        }
        return layers
    }

    /// 1 where `input` is above 0, else 0: ReLU, a gain of 2^252 in two steps (which takes the least
    /// positive float past 1, and larger values to infinity), and the least of that and 1.
    private func step(_ name: String, _ input: String, _ output: String) -> [CoreMLNeuralNetworkLayer] {
        [
            .activation(name + "_positive", input, output + "_positive", .reLu(.init())),
            .multiply(name + "_gain", [output + "_positive"], output + "_gained", alpha: 0x1p126),
            .multiply(name + "_gain_negated", [output + "_gained"], output + "_negated", alpha: -0x1p126),
            .unary(name + "_at_most_one", output + "_negated", output + "_at_most_one", .threshold, alpha: -1),
            .multiply(name, [output + "_at_most_one"], output, alpha: -1),
        ]
    }

    /// `blobs` one after another along C, as `output`; a concat takes two or more.
    private func concatenated(_ name: String, _ blobs: [String], _ output: String) -> CoreMLNeuralNetworkLayer {
        blobs.count > 1 ? .concat(name, blobs, output) : .multiply(name, blobs, output)
    }

    private func name(_ part: String) -> String { Self.layerPrefix + part }
    private func blob(_ group: Int, _ part: String) -> String { "rc_g\(group)_\(part)" }
}

/// The sums of the features the kernels convolve, each made once: a feature alone is its slice
/// `rc_feature<channel>` [1, 1, history]; a further channel is added to the sum of those before
/// it, `rc_sum_<channels>`, as `RandomConvolutions` adds them.
private struct ChannelSums {
    private var made: Set<[Int]> = []

    mutating func blob(of channels: [Int], layers: inout [CoreMLNeuralNetworkLayer]) -> String {
        let prefix = CoreMLRandomConvolutions.layerPrefix
        guard channels.count > 1 else {
            let channel = channels[0], name = "rc_feature\(channel)"
            if made.insert(channels).inserted {
                layers.append(.slice(prefix + "feature\(channel)", "rc_recent", name, channel..<channel + 1))
            }
            return name
        }
        let name = "rc_sum_" + channels.map(String.init).joined(separator: "_")
        guard made.insert(channels).inserted else { return name }
        let before = blob(of: Array(channels.dropLast()), layers: &layers)
        let last = blob(of: [channels.last!], layers: &layers)
        layers.append(.add(prefix + String(name.dropFirst(3)), [before, last], name))
        return name
    }
}

extension Float {
    /// Dekker's split: two floats of 12 significant bits each that sum to it exactly.
    fileprivate var splitInHalves: (high: Float, low: Float) {
        let spread = self * 4097
        let high = spread - (spread - self)
        return (high, self - high)
    }
}
