import GestureLearning
import Testing

@Suite struct NetworkWeightsTests {
    @Test func aModelRebuiltFromItsWeightsIsTheSameModel() throws {
        let description = ModelDescription(
            featureNames: ["rotX", "accelX"], windowing: Windowing(window: 4), samplingRate: 25,
            classNames: ["rest", "shake", "wave"],
            layers: LayerSizes(convolutionFilters: 5, lstmUnits: 7, denseUnits: 6))
        let normalization = FeatureNormalization(mean: [0.5, -1], deviation: [2, 0.25])
        let model = GestureModel(untrained: description, normalization: normalization, seed: 3)
        let rebuilt = try GestureModel(description, normalization: normalization, weights: model.weights)
        #expect(rebuilt == model)
        #expect(model.weights.lstm.inputMatrix(.forget).count == 7 * 5)
    }

    @Test func perGateMatricesGoBackWhereTheyCameFrom() {
        let description = ModelDescription(
            featureNames: ["rotX"], windowing: Windowing(window: 3), samplingRate: 25, classNames: ["rest", "chop"],
            layers: LayerSizes(convolutionFilters: 4, lstmUnits: 3, denseUnits: 2))
        let lstm = GestureModel(untrained: description, normalization: .init(mean: [0], deviation: [1]), seed: 9)
            .weights.lstm
        let gates = LSTMWeights.Gate.allCases
        let rebuilt = LSTMWeights(
            inputs: lstm.inputs, units: lstm.units, inputMatrices: gates.map(lstm.inputMatrix),
            recurrentMatrices: gates.map(lstm.recurrentMatrix), biases: gates.map(lstm.bias))
        #expect(rebuilt == lstm)
    }

    @Test func weightsThatDoNotFitAreRefused() throws {
        let description = ModelDescription(
            featureNames: ["rotX"], windowing: Windowing(window: 3), samplingRate: 25, classNames: ["rest", "chop"],
            layers: LayerSizes(convolutionFilters: 4, lstmUnits: 3, denseUnits: 2))
        let normalization = FeatureNormalization(mean: [0], deviation: [1])
        var weights = GestureModel(untrained: description, normalization: normalization, seed: 9).weights
        weights.output.outputs = 3
        #expect(throws: ModelFileError.self) {
            try GestureModel(description, normalization: normalization, weights: weights)
        }
    }
}
