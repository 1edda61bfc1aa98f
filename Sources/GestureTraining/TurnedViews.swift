import GestureAnalysis
import GestureCore
import GestureLearning
import GestureMotion

/// A test set as recorded and as six copies turned by ± `degrees` about each of the watch's axes,
/// as the model reads them: a model's probabilities averaged over the seven are less thrown by
/// how a new person wears the watch (test-time augmentation).
public struct TurnedViews: Sendable {
    /// The sessions as recorded, then each turned copy's.
    let views: [[LabeledSequence]]

    public init(_ test: Dataset, degrees: Double, features: [String], classNames: [String]) throws {
        let chosen = try features.map { name throws in try Feature(named: name) }
        let axes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)]
        let turns = axes.flatMap { axis in
            [-degrees, degrees].map { Quaternion(axis: axis, angle: $0 * .pi / 180) }
        }
        let turned = turns.enumerated().map { index, turn in
            Dataset(sessions: test.sessions.map { $0.rotated(by: turn, name: "turned \(index + 1)") })
        }
        views = try ([test] + turned).map { dataset throws in
            try TrainingData(dataset: dataset, features: chosen, classNames: classNames).sequences
        }
    }

    /// `model`'s probabilities averaged over the views, scored against the recording's labels.
    public func evaluation(of model: GestureModel) -> Evaluation {
        Evaluation(
            classNames: model.classNames, windowing: model.windowing, sequences: views[0],
            scores: meanPredictions(views.map { model.predict($0) }))
    }
}
