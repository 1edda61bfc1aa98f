import GestureCore
import Testing

@testable import GestureLearning

/// A model with both tests of its rejection, to self-train on a new person's unlabeled sessions.
private let trained = try! trainSmallModel(epochs: 8).calibratingRejection(
    on: smallSessions, motion: MotionCalibration())
/// Another person's sessions: the first feature half as strong, each shifted by a constant, as a
/// watch worn otherwise.
private let shifted = smallSessions.map { sequence in
    var copy = sequence
    copy.features = sequence.features.enumerated().map { index, value in
        (index % 3 == 0 ? 0.5 * value : value) + 0.9
    }
    return copy
}

@Suite struct SelfTrainingTests {
    private func accuracy(_ model: GestureModel) -> Double {
        Evaluation(model: model, sequences: shifted).accuracy
    }

    @Test func selfTrainingLiftsAccuracyOnAShiftedPersonAndKeepsTheLSTMAndTheRejection() throws {
        let personalizer = Personalizer(base: trained, baseName: "base.model", classNames: trained.classNames)
        let pat = try UserID("pat")
        let adapted = try personalizer.adaptingNormalization(shifted, user: pat)
        let selfTrained = try personalizer.adaptingNormalization(
            shifted, user: pat, selfTraining: SelfTraining(confidence: 0.8))
        #expect(accuracy(adapted) > accuracy(trained))
        #expect(accuracy(selfTrained) > accuracy(adapted))
        let frozen = trained.network.layout.dense.weight.lowerBound
        #expect(selfTrained.parameters[..<frozen] == trained.parameters[..<frozen])
        #expect(selfTrained.rejection != nil && selfTrained.rejection == trained.rejection)
        #expect(selfTrained.personalization?.method == .unlabeled)
    }

    /// A session of rest, then shaking far harder than anyone taught it: the windows the rejection
    /// finds unknown are never labeled, whatever the confidence.
    @Test func windowsTheRejectionFindsUnknownAreNeverUsed() throws {
        var stream = smallSessions[0]
        stream.features += smallSessions[1].features.map { 5 * $0 + 3 }
        stream.labels += smallSessions[1].labels
        let size = trained.windowing.window * 3
        let windows = (0..<stream.sampleCount / trained.windowing.window).map {
            Array(stream.features[$0 * size..<($0 + 1) * size])
        }
        let classifier = StreamingClassifier(model: trained)
        var state = classifier.initialState
        let rejected = windows.filter { classifier.rejects(classifier.step($0, state: &state), state: state) }
        #expect(rejected.count >= 5, "of the unknown motion's 10 windows")
        let used = trained.confidentWindows(in: [stream], confidence: 0).flatMap { run in
            (0..<run.sampleCount / trained.windowing.window).map {
                Array(run.features[$0 * size..<($0 + 1) * size])
            }
        }
        #expect(used.count == windows.count - rejected.count)
        #expect(Set(used).isDisjoint(with: rejected))
        let confident = trained.confidentWindows(in: [stream], confidence: 0.95)
        #expect(confident.map(\.sampleCount).reduce(0, +) < used.count * trained.windowing.window)
        #expect(confident.allSatisfy { Set($0.labels).count == 1 })
    }
}
