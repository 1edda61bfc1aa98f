import GestureAnalysis
import GestureLearning
import GestureTestSupport
import GestureTraining
import Testing

@Suite struct CrossValidationTests {
    private func experiment(for fold: CrossValidation.Fold) throws -> Experiment {
        var layers = LayerSizes()
        (layers.convolutionFilters, layers.lstmUnits, layers.denseUnits) = (4, 4, 4)
        return try Experiment(
            name: "test", features: ["rotX", "rotY", "rotZ"], window: 25, layers: layers, training: fold.training,
            augmentation: AugmentationPlan([]), options: TrainingOptions(epochs: 2), validation: nil,
            test: fold.test)
    }

    @Test func aCancelledFoldIsLeftOutAndTheFoldsBeforeItAreSummarised() throws {
        let crossValidation = try CrossValidation(Dataset(sessions: try syntheticDataset()))
        var told: [String] = []
        let summary = try crossValidation.run(
            runs: 1, seed: 1, experiment: experiment, isCancelled: { told.count == 1 }, each: { told.append($0.user) })
        #expect(told == ["ann"])
        #expect(summary.folds == 1)
    }

    @Test func withoutCancellingEveryFoldRuns() throws {
        let crossValidation = try CrossValidation(Dataset(sessions: try syntheticDataset()))
        var told: [String] = []
        let summary = try crossValidation.run(runs: 2, seed: 1, experiment: experiment) { told.append($0.user) }
        #expect(told == ["ann", "bob", "cy"])
        #expect(summary.folds == 3)
    }
}
