import Foundation
import Testing

@testable import GestureLearning
@testable import GestureMotion

/// Floats at a fixed address, as the layers take them.
final class Floats {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    init(_ values: [Float]) {
        count = values.count
        pointer = .allocate(capacity: max(count, 1))
        pointer.initialize(from: values, count: count)
    }

    convenience init(zeros count: Int) { self.init([Float](repeating: 0, count: count)) }

    /// Uniform in ±scale.
    convenience init(random count: Int, seed: UInt64, scale: Float = 1) {
        var random = Xoshiro256(seed: seed)
        self.init((0..<count).map { _ in (2 * random.unitFloat() - 1) * scale })
    }

    deinit { pointer.deallocate() }

    var array: [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}

/// Σ values · projection in Double: a scalar loss whose gradient with respect to the values is the projection.
func projected(_ values: UnsafePointer<Float>, onto projection: Floats) -> Double {
    (0..<projection.count).reduce(0) { $0 + Double(values[$1]) * Double(projection.pointer[$1]) }
}

/// Compares an analytic gradient with central differences of `loss` in every element of `parameter`.
func expectGradient(
    _ analytic: [Float], of parameter: Floats, epsilon: Float = 1e-3, loss: () -> Double,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(analytic.count == parameter.count, sourceLocation: sourceLocation)
    for index in 0..<parameter.count {
        let value = parameter.pointer[index]
        parameter.pointer[index] = value + epsilon
        let plus = loss()
        parameter.pointer[index] = value - epsilon
        let minus = loss()
        parameter.pointer[index] = value
        let step = Double(value + epsilon) - Double(value - epsilon)
        let numeric = (plus - minus) / step
        let tolerance = 2e-3 + 2e-2 * max(abs(numeric), abs(Double(analytic[index])))
        #expect(
            abs(numeric - Double(analytic[index])) <= tolerance,
            "element \(index): analytic \(analytic[index]), numeric \(numeric)", sourceLocation: sourceLocation)
    }
}

@Suite struct GradientTests {
    @Test(arguments: [false, true])
    func affineLayer(packsFactors: Bool) {
        let layer = Affine(inputs: 3, outputs: 4), rows = 5
        let room = Floats(zeros: layer.packingCount(rows: rows)), packing = packsFactors ? room.pointer : nil
        let x = Floats(random: rows * 3, seed: 1), weight = Floats(random: 12, seed: 2),
            bias = Floats(random: 4, seed: 3)
        let projection = Floats(random: rows * 4, seed: 4), y = Floats(zeros: rows * 4)
        func loss() -> Double {
            layer.forward(
                x.pointer, rows: rows, weight: weight.pointer, bias: bias.pointer, into: y.pointer, packing: packing)
            return projected(y.pointer, onto: projection)
        }
        let weightGradient = Floats(zeros: 12), biasGradient = Floats(zeros: 4), inputGradient = Floats(zeros: rows * 3)
        layer.backward(
            x.pointer, outputGradient: projection.pointer, rows: rows, weight: weight.pointer,
            weightGradient: weightGradient.pointer, biasGradient: biasGradient.pointer,
            inputGradient: inputGradient.pointer, packing: packing)
        expectGradient(weightGradient.array, of: weight, loss: loss)
        expectGradient(biasGradient.array, of: bias, loss: loss)
        expectGradient(inputGradient.array, of: x, loss: loss)
    }

    /// Four steps, so gradients flow back through the recurrent weights and the cell three times;
    /// sequences of different lengths, packed; recurrent products by OpenBLAS and by the packed kernel.
    @Test(arguments: [[4, 4], [4, 3, 1]], [false, true])
    func lstmThroughTime(lengths: [Int], packsFactors: Bool) {
        let lstm = LSTM(inputs: 3, units: 5), shape = BatchShape(lengths: lengths), rows = shape.rows
        let room = Floats(zeros: lstm.packingCount(rows: rows)), packing = packsFactors ? room.pointer : nil
        let x = Floats(random: rows * 3, seed: 5)
        let input = Floats(random: 3 * lstm.gateWidth, seed: 6, scale: 0.8)
        let recurrent = Floats(random: 5 * lstm.gateWidth, seed: 7, scale: 0.8)
        let bias = Floats(random: lstm.gateWidth, seed: 8, scale: 0.5)
        let weights = LSTM.Weights(input: input.pointer, recurrent: recurrent.pointer, bias: bias.pointer)
        let gates = Floats(zeros: rows * lstm.gateWidth), cells = Floats(zeros: rows * 5),
            cellTanh = Floats(zeros: rows * 5)
        let saved = LSTM.Saved(gates: gates.pointer, cells: cells.pointer, cellTanh: cellTanh.pointer)
        let hidden = Floats(zeros: rows * 5), projection = Floats(random: rows * 5, seed: 9)
        func loss() -> Double {
            lstm.forward(
                x.pointer, shape: shape, weights: weights, saving: saved, into: hidden.pointer,
                packing: packing)
            return projected(hidden.pointer, onto: projection)
        }
        _ = loss()
        let hiddenGradient = Floats(projection.array), gateGradient = Floats(zeros: rows * lstm.gateWidth)
        let cellGradient = Floats(zeros: lengths.count * 5), previousHidden = Floats(zeros: rows * 5)
        let inputGradient = Floats(zeros: rows * 3)
        let gradients = (
            input: Floats(zeros: input.count), recurrent: Floats(zeros: recurrent.count),
            bias: Floats(zeros: bias.count)
        )
        lstm.backward(
            x.pointer, shape: shape, weights: weights, saved: saved, hidden: hidden.pointer,
            hiddenGradient: hiddenGradient.pointer,
            scratch: LSTM.Scratch(
                gateGradient: gateGradient.pointer, cellGradient: cellGradient.pointer,
                previousHidden: previousHidden.pointer),
            gradients: LSTM.Gradients(
                input: gradients.input.pointer, recurrent: gradients.recurrent.pointer,
                bias: gradients.bias.pointer),
            inputGradient: inputGradient.pointer, packing: packing)
        expectGradient(gradients.input.array, of: input, loss: loss)
        expectGradient(gradients.recurrent.array, of: recurrent, loss: loss)
        expectGradient(gradients.bias.array, of: bias, loss: loss)
        expectGradient(inputGradient.array, of: x, loss: loss)
        withExtendedLifetime([gates, cells, cellTanh]) {}
    }

    @Test func batchNorm() {
        let layer = BatchNorm(features: 3), rows = 6
        let x = Floats(random: rows * 3, seed: 10, scale: 2), scale = Floats(random: 3, seed: 11),
            shift = Floats(random: 3, seed: 12)
        let projection = Floats(random: rows * 3, seed: 13), y = Floats(zeros: rows * 3)
        let buffers = [Floats(zeros: rows * 3), Floats(zeros: 3), Floats(zeros: 3), Floats(zeros: 3), Floats(zeros: 6)]
        let saved = BatchNorm.Saved(
            normalized: buffers[0].pointer, inverseDeviation: buffers[1].pointer,
            mean: buffers[2].pointer, variance: buffers[3].pointer)
        func loss() -> Double {
            layer.forwardTraining(
                x.pointer, rows: rows, scale: scale.pointer, shift: shift.pointer, saving: saved, into: y.pointer)
            return projected(y.pointer, onto: projection)
        }
        _ = loss()
        let gradient = Floats(projection.array), scaleGradient = Floats(zeros: 3), shiftGradient = Floats(zeros: 3)
        layer.backward(
            gradient: gradient.pointer, rows: rows, saved: saved, scale: scale.pointer,
            scaleGradient: scaleGradient.pointer, shiftGradient: shiftGradient.pointer,
            workspace: buffers[4].pointer)
        expectGradient(scaleGradient.array, of: scale, loss: loss)
        expectGradient(shiftGradient.array, of: shift, loss: loss)
        expectGradient(gradient.array, of: x, loss: loss)
        withExtendedLifetime(buffers) {}
    }

    /// Weights 0 and 2 as well as 1: a weight-0 row must not move the loss, a weight-2 row twice as
    /// much; smoothed or not, the loss is the targets' cross-entropy and the gradient its own.
    @Test(arguments: [Float(0), 0.1, 0.3])
    func weightedSoftmaxCrossEntropy(smoothing: Float) {
        let loss = SoftmaxCrossEntropy(classes: 3), rows = 4
        let logits = Floats(random: rows * 3, seed: 14, scale: 2), probabilities = Floats(zeros: rows * 3)
        let labels = [2, 0, 1, 1], weights: [Float] = [1, 0, 2, 0.5], weighted = Floats(weights)
        let logitGradient = Floats(zeros: rows * 3)
        /// Σ wᵢ · −Σₖ tᵢₖ log pᵢₖ / Σ wᵢ with targets smoothed by `by`, in Double.
        func crossEntropy(smoothedBy by: Float) -> Double {
            let total = Double(weights.reduce(0, +))
            return (0..<rows).reduce(0) { sum, row in
                sum + (0..<3).reduce(0) { rowSum, index in
                    let target = Double((index == labels[row] ? 1 - by : 0) + by / 3)
                    return rowSum - Double(weights[row]) * target * log(Double(probabilities.pointer[row * 3 + index]))
                } / total
            }
        }
        func value() -> Double {
            probabilities.pointer.update(from: logits.pointer, count: rows * 3)
            loss.softmax(probabilities.pointer, rows: rows)
            let returned = labels.withUnsafeBufferPointer {
                loss.loss(
                    probabilities: probabilities.pointer, labels: $0.baseAddress!, weights: weighted.pointer,
                    rows: rows, smoothing: smoothing, logitGradient: logitGradient.pointer)
            }
            #expect(abs(Double(returned) - crossEntropy(smoothedBy: smoothing)) < 1e-5)
            return Double(returned)
        }
        _ = value()
        let analytic = logitGradient.array
        #expect(analytic[3..<6].allSatisfy { $0 == 0 })
        expectGradient(analytic, of: logits, loss: value)
    }

    /// Smoothed, the loss is least where the probabilities are the target: 1 − ε on the label and
    /// ε spread over every class, not 1 on the label.
    @Test func smoothedTargetsAreTheLabelLessTheShareSpreadOverEveryClass() {
        let loss = SoftmaxCrossEntropy(classes: 3), smoothing: Float = 0.3
        let target: [Float] = [0.1, 0.1, 0.8]
        let probabilities = Floats(target), weights = Floats([1]), gradient = Floats(zeros: 3)
        func logitGradient(smoothing: Float) -> [Float] {
            _ = [2].withUnsafeBufferPointer {
                loss.loss(
                    probabilities: probabilities.pointer, labels: $0.baseAddress!, weights: weights.pointer, rows: 1,
                    smoothing: smoothing, logitGradient: gradient.pointer)
            }
            return gradient.array
        }
        #expect(logitGradient(smoothing: smoothing).allSatisfy { abs($0) < 1e-6 })
        #expect(zip(logitGradient(smoothing: 0), [0.1, 0.1, -0.2]).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func dropoutWithAFixedMask() {
        let dropout = Dropout(rate: 0.5), count = 40
        var random = Xoshiro256(seed: 15)
        let mask = Floats(zeros: count)
        dropout.drawMask(mask.pointer, count: count, using: &random)
        #expect(Set(mask.array) == [0, 2])
        let x = Floats(random: count, seed: 16), projection = Floats(random: count, seed: 17), y = Floats(zeros: count)
        func loss() -> Double {
            y.pointer.update(from: x.pointer, count: count)
            dropout.apply(mask.pointer, to: y.pointer, count: count)
            return projected(y.pointer, onto: projection)
        }
        let gradient = Floats(projection.array)
        dropout.apply(mask.pointer, to: gradient.pointer, count: count)
        expectGradient(gradient.array, of: x, loss: loss)
    }

    /// Each random number gives four 16-bit draws, lowest first; the mask ends where it is told to.
    @Test(arguments: [1, 4, 7, 40, 43])
    func dropoutMaskDrawsSixteenBitsAValue(count: Int) {
        let dropout = Dropout(rate: 0.3)
        var random = Xoshiro256(seed: 21), replay = random
        var mask = [Float](repeating: -1, count: count + 3)
        mask.withUnsafeMutableBufferPointer { dropout.drawMask($0.baseAddress!, count: count, using: &random) }
        var expected: [Float] = []
        while expected.count < count {
            let number = replay.next()
            for lane in 0..<4 where expected.count < count {
                let draw = (number >> (16 * UInt64(lane))) & 0xFFFF
                expected.append(draw < UInt64(Float(0.3) * 65536) ? 0 : 1 / (1 - Float(0.3)))
            }
        }
        #expect(Array(mask[..<count]) == expected)
        #expect(mask[count...].allSatisfy { $0 == -1 }, "nothing written past the mask")
        #expect(random.next() == replay.next(), "one number drawn for each four values")
    }

    /// Values at least 0.05 from the kink, so the differences never straddle it.
    @Test func relu() {
        let count = 20
        let x = Floats((0..<count).map { Float($0 - 10) / 10 + 0.05 }), y = Floats(zeros: count)
        let projection = Floats(random: count, seed: 18)
        func loss() -> Double {
            y.pointer.update(from: x.pointer, count: count)
            applyReLU(y.pointer, count: count)
            return projected(y.pointer, onto: projection)
        }
        _ = loss()
        let gradient = Floats(projection.array)
        reluBackward(output: y.pointer, gradient: gradient.pointer, count: count)
        expectGradient(gradient.array, of: x, loss: loss)
    }

    /// The whole network, small, with the same dropout masks in every pass: every trainable
    /// parameter's gradient, through the temporal convolutions (when it has them), convolution,
    /// LSTM, dense, batch norm and the weighted loss.
    @Test(arguments: [(0, 1), (3, 1), (3, 2)])
    func wholeNetwork(temporalFilters: Int, temporalLayers: Int) {
        // Windows of 4 samples of 2 features: a temporal kernel of 2 samples fits at 3 positions,
        // and a second one at 2 positions of the first's output.
        var architecture = Architecture(
            windowSize: 8, classes: 3,
            layers: LayerSizes(
                convolutionFilters: 5, lstmUnits: 4, denseUnits: 6, temporalFilters: temporalFilters, temporalKernel: 2,
                temporalLayers: temporalLayers),
            window: 4)
        architecture.convolutionDropout = 0.25
        architecture.denseDropout = 0.25
        let network = Network(architecture), shape = BatchShape(lengths: [3, 3, 2]), rows = shape.rows
        let workspace = Workspace(network, capacity: rows)
        var random = Xoshiro256(seed: 19)
        // Zero biases would put every ReLU fed by a dead one exactly at its kink, where the numeric
        // gradient is half the slope: a little noise on every parameter keeps them off it.
        let noise = Floats(random: network.layout.parameterCount, seed: 22, scale: 0.05).array
        let parameters = Floats(zip(network.initialParameters(using: &random), noise).map { $0 + $1 })
        let inputs = Floats(random: rows * 8, seed: 20, scale: 2)
        for row in 0..<rows {
            workspace.labels[row] = row % 3
            workspace.lossWeights[row] = row == rows - 1 ? 0 : 1
        }
        let gradient = Floats(zeros: network.layout.trainableCount)
        func loss() -> Double {
            workspace.input.update(from: inputs.pointer, count: rows * 8)
            var masks = Xoshiro256(seed: 21)
            network.forwardTraining(parameters.pointer, shape: shape, workspace: workspace, random: &masks)
            return Double(
                network.backward(
                    parameters.pointer, shape: shape, workspace: workspace,
                    gradient: gradient.pointer))
        }
        _ = loss()
        let analytic = gradient.array
        // Every temporal layer has a gradient to check: none is dead.
        for layer in network.layout.temporal {
            #expect(analytic[layer.weight.lowerBound..<layer.bias.upperBound].contains { $0 != 0 })
        }
        let trainableCount = network.layout.trainableCount
        let trainable = Floats(Array(parameters.array[..<trainableCount]))
        expectGradient(analytic, of: trainable) {
            parameters.pointer.update(from: trainable.pointer, count: trainableCount)
            return loss()
        }
    }
}
