import GestureAnalysis
import GestureLearning
import GestureTestSupport
import Testing

@testable import GestureTraining

@Suite struct TurnedViewsTests {
    private let features = ["rotX", "rotY", "rotZ"]

    private func model(_ dataset: Dataset) throws -> GestureModel {
        var layers = LayerSizes()
        (layers.convolutionFilters, layers.lstmUnits, layers.denseUnits) = (4, 4, 4)
        return try Experiment(
            name: "test", features: features, window: 25, layers: layers, training: dataset,
            augmentation: AugmentationPlan([]), options: TrainingOptions(epochs: 2), validation: nil, test: nil
        ).train(seed: 1).model
    }

    /// Six copies, turned both ways about each axis in turn: a quarter turn about z carries the
    /// wave's rotation about x to y and leaves z's as it was.
    @Test func theCopiesAreTheRecordingTurnedAboutEachAxis() throws {
        let test = Dataset(sessions: try syntheticDataset().filter { $0.user.rawValue == "cy" })
        let views = try TurnedViews(test, degrees: 90, features: features, classNames: ["rest", "twist", "wave"])
        #expect(views.views.count == 7)
        let wave = try #require(views.views[0].firstIndex { $0.session.rawValue == "cy-wave-1" })
        let recorded = views.views[0][wave].features, quarterAboutZ = views.views[6][wave].features
        for sample in stride(from: 0, to: recorded.count, by: 3) {
            #expect(abs(abs(quarterAboutZ[sample + 1]) - abs(recorded[sample])) < 1e-4)
            #expect(abs(abs(quarterAboutZ[sample]) - abs(recorded[sample + 1])) < 1e-4)
            #expect(abs(quarterAboutZ[sample + 2] - recorded[sample + 2]) < 1e-4)
        }
    }

    /// Unturned copies change nothing: the mean over seven identical views is the model's own.
    @Test func viewsTurnedByNothingScoreAsTheModelDoes() throws {
        let sessions = try syntheticDataset()
        let model = try model(Dataset(sessions: sessions.filter { $0.user.rawValue != "cy" }))
        let test = Dataset(sessions: sessions.filter { $0.user.rawValue == "cy" })
        let views = try TurnedViews(test, degrees: 0, features: features, classNames: model.classNames)
        let plain = Evaluation(model: model, sequences: views.views[0])
        #expect(views.evaluation(of: model).confusion == plain.confusion)
        let turned = try TurnedViews(test, degrees: 60, features: features, classNames: model.classNames)
        #expect(turned.evaluation(of: model).confusion.joined().reduce(0, +) == plain.confusion.joined().reduce(0, +))
    }
}
