import FoundationEssentials
import GestureMotion
import Glibc

/// `y = x · weight + bias` for each row of x. It is also the model's convolution: a kernel as long
/// as its stride sees each window once, so it is a dense layer on the flattened window.
struct Affine {
    let inputs: Int
    let outputs: Int

    /// Room to pack any right-hand factor of the products over `rows` rows (see `gemm`).
    func packingCount(rows: Int) -> Int {
        [(inputs, outputs), (outputs, inputs), (rows, outputs)].map { PackedFactor.packedCount(k: $0.0, n: $0.1) }
            .max()!
    }

    /// `weight` is `inputs × outputs`, row-major; `packing` as for `gemm`.
    func forward(
        _ x: UnsafePointer<Float>, rows: Int, weight: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        into y: UnsafeMutablePointer<Float>, packing: UnsafeMutablePointer<Float>?, team: ThreadTeam? = nil
    ) {
        broadcastRows(bias, to: y, rowCount: rows, columns: outputs, team: team)
        gemm(rows, outputs, inputs, x, weight, y, beta: 1, packing: packing, team: team)
    }

    /// Writes the parameters' gradients, and the input's unless `inputGradient` is nil (the first
    /// layer needs none).
    func backward(
        _ x: UnsafePointer<Float>, outputGradient: UnsafePointer<Float>, rows: Int,
        weight: UnsafePointer<Float>, weightGradient: UnsafeMutablePointer<Float>,
        biasGradient: UnsafeMutablePointer<Float>, inputGradient: UnsafeMutablePointer<Float>?,
        packing: UnsafeMutablePointer<Float>?, team: ThreadTeam? = nil
    ) {
        gemm(inputs, outputs, rows, x, transposeA: true, outputGradient, weightGradient, packing: packing, team: team)
        columnSums(outputGradient, rows: rows, columns: outputs, into: biasGradient, team: team)
        if let inputGradient {
            gemm(
                rows, inputs, outputs, outputGradient, weight, transposeB: true, inputGradient, packing: packing,
                team: team)
        }
    }
}

/// Inverted dropout: kept values are scaled by 1 / (1 − rate) while training, so inference is the
/// identity.
struct Dropout {
    let rate: Float

    /// Draws a mask of 0 and 1 / (1 − rate), four 16-bit draws from each random number.
    func drawMask(_ mask: UnsafeMutablePointer<Float>, count: Int, using random: inout Xoshiro256) {
        let kept = SIMD4<Float>(repeating: 1 / (1 - rate)), threshold = SIMD4<Int32>(repeating: Int32(rate * 65536))
        let raw = UnsafeMutableRawPointer(mask)
        for first in stride(from: 0, to: count, by: 4) {
            let draws = SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(random.next(), to: SIMD4<UInt16>.self))
            let values = kept.replacing(with: 0, where: draws .< threshold)
            if count - first >= 4 {
                raw.storeBytes(of: values, toByteOffset: first * MemoryLayout<Float>.stride, as: SIMD4<Float>.self)
            } else {
                for lane in 0..<count - first { mask[first + lane] = values[lane] }
            }
        }
    }

    /// Forward and backward alike: multiplies by the mask in place.
    func apply(_ mask: UnsafePointer<Float>, to values: UnsafeMutablePointer<Float>, count: Int) {
        multiply(values, by: mask, count: count)
    }
}

/// Batch normalization over the rows of a batch, per feature.
struct BatchNorm {
    let features: Int
    let epsilon: Float = 0.001
    /// Weight of the newest batch in the running statistics.
    let momentum: Float = 0.1

    /// What the backward pass needs of a training forward pass.
    struct Saved {
        /// `rows × features`: the inputs standardized with the batch's statistics.
        let normalized: UnsafeMutablePointer<Float>
        /// Per feature: 1 / √(variance + ε).
        let inverseDeviation: UnsafeMutablePointer<Float>
        /// Per feature: the batch's mean and (biased) variance.
        let mean: UnsafeMutablePointer<Float>
        let variance: UnsafeMutablePointer<Float>
    }

    func forwardTraining(
        _ x: UnsafePointer<Float>, rows: Int, scale: UnsafePointer<Float>, shift: UnsafePointer<Float>,
        saving saved: Saved, into y: UnsafeMutablePointer<Float>
    ) {
        columnSums(x, rows: rows, columns: features, into: saved.mean)
        for feature in 0..<features { saved.mean[feature] /= Float(rows) }
        saved.variance.update(repeating: 0, count: features)
        for row in 0..<rows {
            let values = x + row * features
            forEachLane(features) { lane in
                let difference = lane.load(values) - lane.load(saved.mean)
                lane.store(lane.load(saved.variance) + difference * difference, saved.variance)
            }
        }
        for feature in 0..<features {
            saved.variance[feature] /= Float(rows)
            saved.inverseDeviation[feature] = 1 / (saved.variance[feature] + epsilon).squareRoot()
        }
        for row in 0..<rows {
            let input = x + row * features, normalized = saved.normalized + row * features, output = y + row * features
            forEachLane(features) { lane in
                let value = (lane.load(input) - lane.load(saved.mean)) * lane.load(saved.inverseDeviation)
                lane.store(value, normalized)
                lane.store(value * lane.load(scale) + lane.load(shift), output)
            }
        }
    }

    func updateRunning(mean: UnsafeMutablePointer<Float>, variance: UnsafeMutablePointer<Float>, from saved: Saved) {
        for feature in 0..<features {
            mean[feature] += momentum * (saved.mean[feature] - mean[feature])
            variance[feature] += momentum * (saved.variance[feature] - variance[feature])
        }
    }

    func forwardInference(
        _ x: UnsafePointer<Float>, rows: Int, scale: UnsafePointer<Float>, shift: UnsafePointer<Float>,
        mean: UnsafePointer<Float>, variance: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>
    ) {
        for row in 0..<rows {
            let offset = row * features
            for feature in 0..<features {
                let normalized = (x[offset + feature] - mean[feature]) / (variance[feature] + epsilon).squareRoot()
                y[offset + feature] = normalized * scale[feature] + shift[feature]
            }
        }
    }

    /// `gradient` comes in as the output's and leaves as the input's. `workspace` holds 2 · features.
    func backward(
        gradient: UnsafeMutablePointer<Float>, rows: Int, saved: Saved, scale: UnsafePointer<Float>,
        scaleGradient: UnsafeMutablePointer<Float>, shiftGradient: UnsafeMutablePointer<Float>,
        workspace: UnsafeMutablePointer<Float>
    ) {
        columnSums(gradient, rows: rows, columns: features, into: shiftGradient)
        scaleGradient.update(repeating: 0, count: features)
        for row in 0..<rows {
            let rowGradient = gradient + row * features, normalized = saved.normalized + row * features
            forEachLane(features) { lane in
                lane.store(lane.load(scaleGradient) + lane.load(rowGradient) * lane.load(normalized), scaleGradient)
            }
        }
        // With g = dL/dx̂ = dL/dy · scale: dL/dx = (g − mean(g) − x̂ · mean(g · x̂)) / σ, and
        // mean(g) = scale · shiftGradient / rows, mean(g · x̂) = scale · scaleGradient / rows.
        let meanGradient = workspace, meanProduct = workspace + features
        for feature in 0..<features {
            meanGradient[feature] = scale[feature] * shiftGradient[feature] / Float(rows)
            meanProduct[feature] = scale[feature] * scaleGradient[feature] / Float(rows)
        }
        for row in 0..<rows {
            let rowGradient = gradient + row * features, normalized = saved.normalized + row * features
            forEachLane(features) { lane in
                let g = lane.load(rowGradient) * lane.load(scale)
                let value =
                    (g - lane.load(meanGradient) - lane.load(normalized) * lane.load(meanProduct))
                    * lane.load(saved.inverseDeviation)
                lane.store(value, rowGradient)
            }
        }
    }
}

/// Softmax, and cross-entropy weighted per row, averaged over the weights.
struct SoftmaxCrossEntropy {
    let classes: Int

    /// Turns logits into probabilities in place.
    func softmax(_ values: UnsafeMutablePointer<Float>, rows: Int) {
        for row in 0..<rows {
            let logits = values + row * classes
            var largest = logits[0]
            for index in 1..<classes { largest = max(largest, logits[index]) }
            var sum: Float = 0
            for index in 0..<classes {
                logits[index] = exp(logits[index] - largest)
                sum += logits[index]
            }
            for index in 0..<classes { logits[index] /= sum }
        }
    }

    /// The loss Σ wᵢ · −Σₖ tᵢₖ log pᵢₖ / Σ wᵢ, and its gradient with respect to the logits, where
    /// the target tᵢ is 1 − `smoothing` on labelᵢ plus `smoothing` spread over every class (label
    /// smoothing; 0 is the plain cross-entropy). Returns 0 and a zero gradient when every weight is 0.
    func loss(
        probabilities: UnsafePointer<Float>, labels: UnsafePointer<Int>, weights: UnsafePointer<Float>, rows: Int,
        smoothing: Float = 0, logitGradient: UnsafeMutablePointer<Float>
    ) -> Float {
        var totalWeight: Float = 0
        for row in 0..<rows { totalWeight += weights[row] }
        let normalizer = totalWeight > 0 ? 1 / totalWeight : 0
        let spread = smoothing / Float(classes)
        var loss: Float = 0
        for row in 0..<rows {
            let offset = row * classes, weight = weights[row] * normalizer
            for index in 0..<classes {
                let target = (index == labels[row] ? 1 - smoothing : 0) + spread
                if target > 0 {
                    loss -= weight * target * log(max(probabilities[offset + index], .leastNormalMagnitude))
                }
                logitGradient[offset + index] = weight * (probabilities[offset + index] - target)
            }
        }
        return loss
    }
}
