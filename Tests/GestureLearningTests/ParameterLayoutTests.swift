import Testing

@testable import GestureLearning

@Suite struct ParameterLayoutTests {
    /// Turi Create's architecture with the book's layers (20 samples of 6 features, 4 classes), and
    /// two temporal convolutions before small ones.
    static let architectures = [
        Architecture(windowSize: 120, classes: 4),
        Architecture(
            windowSize: 30, classes: 3,
            layers: LayerSizes(
                convolutionFilters: 8, lstmUnits: 6, denseUnits: 5, temporalFilters: 4, temporalKernel: 3,
                temporalLayers: 2),
            window: 10),
    ]

    /// Every parameter has one place: the ranges, in the order they are named, follow one another
    /// from 0 to `parameterCount`, the trainable ones first.
    @Test(arguments: architectures)
    func rangesTileTheParameters(architecture: Architecture) {
        let layout = Network(architecture).layout
        let trainable =
            layout.temporal.flatMap { [$0.weight, $0.bias] } + [
                layout.convolution.weight, layout.convolution.bias, layout.lstm.input, layout.lstm.recurrent,
                layout.lstm.bias, layout.dense.weight, layout.dense.bias, layout.batchNorm.scale,
                layout.batchNorm.shift, layout.output.weight, layout.output.bias,
            ]
        let ranges = trainable + [layout.batchNorm.runningMean, layout.batchNorm.runningVariance]
        #expect(layout.temporal.count == architecture.temporal?.layers ?? 0)
        #expect(ranges.allSatisfy { !$0.isEmpty })
        #expect(ranges.first?.lowerBound == 0)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(trainable.last?.upperBound == layout.trainableCount)
        #expect(ranges.last?.upperBound == layout.parameterCount)
    }

    @Test(arguments: architectures)
    func eachRangeHoldsItsLayersTensor(architecture: Architecture) {
        let network = Network(architecture), layout = network.layout
        let affine = zip(
            network.temporal + [network.convolution, network.dense, network.output],
            layout.temporal + [layout.convolution, layout.dense, layout.output])
        for (layer, ranges) in affine {
            #expect(ranges.weight.count == layer.inputs * layer.outputs && ranges.bias.count == layer.outputs)
        }
        let lstm = network.lstm
        #expect(layout.lstm.weights.count == (lstm.inputs + lstm.units) * lstm.gateWidth)
        #expect(layout.lstm.bias.count == lstm.gateWidth)
        #expect(layout.batchNorm.runningVariance.count == architecture.denseUnits)
    }

    @Test func theBookSizedModelHasTheBooksParameterCount() {
        #expect(Network(Self.architectures[0]).layout.parameterCount == 246_500)
    }
}
