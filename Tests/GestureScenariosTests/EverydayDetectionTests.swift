import GestureCore
import GestureLearning
import GestureLive
import GestureScenarios
import Testing

/// A small model of shake, chop and rest at 25 Hz, trained a little on made-up sessions: what it
/// detects in everyday motion does not matter here, only how that is counted.
private let model: GestureModel = {
    let sessions = SyntheticSessions(sessions: 6, totalSamples: 1_200, featureCount: 6, classCount: 3, seed: 5).make()
    let description = ModelDescription(
        featureNames: ["rotX", "rotY", "rotZ", "accelX", "accelY", "accelZ"], windowing: Windowing(window: 20),
        samplingRate: 25, classNames: ["chop", "rest", "shake"],
        layers: LayerSizes(convolutionFilters: 8, lstmUnits: 8, denseUnits: 8))
    // Training made-up sessions with these options cannot fail.
    return try! Trainer(model: description, options: TrainingOptions(epochs: 2, batchSize: 4, seed: 1))
        .train(sessions, validation: []).model
}()

@Suite struct EverydayDetectionTests {
    /// With no threshold, every prediction of a gesture is a detection, and each one is false.
    @Test func everyDetectionInEverydayMotionIsFalseOverAllItsMinutes() throws {
        let eager = DetectionSettings(threshold: 0, cooldown: 2)
        let score = try EventScore(model: model, everydayOf: UserID("eve"), seed: 4, minutes: 3, settings: eager)
        #expect(score.events == 0 && score.found == 0 && score.repeats == 0)
        #expect(abs(score.minutes - 3) < 0.01 && score.unknownMinutes == score.minutes)
        #expect(score.falseDetections > 0)
        #expect(abs(score.falseDetectionsPerHour - Double(score.falseDetections) / score.unknownHours) < 1e-9)
    }

    @Test func theSameSeedAndPersonGiveTheSameScore() throws {
        let eager = DetectionSettings(threshold: 0.5, cooldown: 2)
        let score = { (seed: UInt64) in
            try EventScore(model: model, everydayOf: UserID("eve"), seed: seed, minutes: 2, settings: eager)
        }
        #expect(try score(3) == score(3))
    }
}
