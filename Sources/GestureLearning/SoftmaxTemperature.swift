import FoundationEssentials
import Glibc

/// A softmax with a temperature: each row's scores times a scale (one over the temperature)
/// before the softmax.
enum SoftmaxTemperature {
    /// Each row's softmax of its scores times `scale`.
    static func softmax(_ scores: inout [Float], classCount: Int, scale: Float) {
        for index in scores.indices { scores[index] *= scale }
        let rows = scores.count / classCount
        scores.withUnsafeMutableBufferPointer {
            SoftmaxCrossEntropy(classes: classCount).softmax($0.baseAddress!, rows: rows)
        }
    }

    /// The scale of the scores whose softmax gives the labels the least cross-entropy: a golden-section
    /// search over its logarithm, where the cross-entropy, convex in the scale, has one minimum.
    static func fittedScale(scores: [Float], labels: [Int], classCount: Int) -> Float {
        func crossEntropy(_ logScale: Double) -> Double {
            var probabilities = scores
            softmax(&probabilities, classCount: classCount, scale: Float(exp(logScale)))
            return labels.enumerated().reduce(0.0) { sum, row in
                sum - log(Double(max(probabilities[row.offset * classCount + row.element], .leastNormalMagnitude)))
            }
        }
        let ratio = (5.0.squareRoot() - 1) / 2
        var low = log(0.1), high = log(1000.0)
        for _ in 0..<40 {
            let left = high - ratio * (high - low), right = low + ratio * (high - low)
            if crossEntropy(left) < crossEntropy(right) { high = right } else { low = left }
        }
        return Float(exp((low + high) / 2))
    }

    /// The scale on a network's logits that fits labeled windows best, from its probabilities
    /// (`classCount` a window; windows of weight 0 are left out).
    ///
    /// A network taught smoothed targets is never surer than 1 − ε + ε/classes, so a detector's
    /// threshold near that ceiling would pass few windows; the fitted scale gives back the
    /// sureness the labels support, without changing which class is on top.
    static func fittedScale(
        probabilities: [Float], labels: [Int], weights: [Float], classCount: Int
    ) -> Float {
        let windows = labels.indices.filter { weights[$0] > 0 }
        let logits = windows.flatMap { window in
            (0..<classCount).map { log(max(probabilities[window * classCount + $0], .leastNormalMagnitude)) }
        }
        return fittedScale(scores: logits, labels: windows.map { labels[$0] }, classCount: classCount)
    }
}

extension GestureModel {
    /// This model with its output layer's weights and bias times `scale`: its logits times
    /// `scale`, in every format that carries the network.
    func scalingLogits(by scale: Float) -> GestureModel {
        let output = network.layout.output
        var parameters = parameters
        for index in output.weight.lowerBound..<output.bias.upperBound { parameters[index] *= scale }
        return replacingParameters(parameters)
    }
}
