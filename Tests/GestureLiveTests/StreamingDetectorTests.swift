import GestureCore
import GestureLive
import GestureTestSupport
import Testing

/// A classifier whose output is a function of its window and state, so tests can tell which
/// samples and which earlier windows reached a prediction.
private struct Recorder: WindowClassifier {
    let classNames = ["rest", "shake", "chop"]
    var initialState: [Float] { [] }

    /// The state is every window's first value so far; probabilities come from the window's mean.
    func step(_ window: [Float], state: inout [Float]) -> [Float] {
        state.append(window[0])
        let mean = window.reduce(0, +) / Float(window.count)
        switch mean {
        case ..<1: return [0.9, 0.05, 0.05]
        case ..<2: return [0.05, 0.93, 0.02]
        default: return [0.1, 0.2, 0.7]
        }
    }
}

/// A classifier that reports its slot's state: how many windows the slot has seen and when.
private struct StateProbe: WindowClassifier {
    let classNames = ["a", "b"]
    var initialState: [Float] { [] }

    func step(_ window: [Float], state: inout [Float]) -> [Float] {
        state.append(window.last!)
        return [Float(state.count), state.first!]
    }
}

/// What a `StateProbe` prediction says: how many windows its slot has seen, and the newest
/// sample of the slot's first window, whichever of the two ranked first.
private func probed(_ prediction: Prediction) -> (windows: Double, first: Double) {
    prediction.gesture == "a"
        ? (prediction.probability, prediction.runnerUpProbability)
        : (prediction.runnerUpProbability, prediction.probability)
}

@Suite struct StreamingDetectorTests {
    private func detector(
        threshold: Double = 0.9, cooldown: Double = 1, averaging: Int = 1
    ) -> StreamingDetector<Recorder> {
        StreamingDetector(
            classifier: Recorder(), window: 4, featureCount: 1,
            settings: DetectionSettings(offset: 2, threshold: threshold, cooldown: cooldown, averaging: averaging))
    }

    @Test func restIsNeverDetectedAndAGestureOnlyAboveTheThreshold() {
        var detector = detector()
        var detections: [Prediction] = []
        for (index, value) in ([Float](repeating: 0, count: 8) + [Float](repeating: 1.5, count: 8)).enumerated() {
            if let prediction = detector.add([value], at: Double(index) * 0.1),
                let found = detector.detection(prediction)
            {
                detections.append(found)
            }
        }
        #expect(detections.map(\.gesture) == ["shake"])
        #expect(detections.first?.probability == Double(Float(0.93)))
        #expect(detections.first?.runnerUp == "rest")

        var strict = self.detector(threshold: 0.95)
        let strictDetections = (0..<16).compactMap {
            strict.add([1.5], at: Double($0)).flatMap { strict.detection($0) }
        }
        #expect(strictDetections.isEmpty)
    }

    @Test func aCooldownSuppressesRepeats() {
        var detector = detector(cooldown: 1)
        let found = (0..<40).compactMap { index in
            detector.add([1.5], at: Double(index) * 0.1).flatMap { detector.detection($0) }
        }
        // Predictions every 0.2 s from 0.3 s on; one detection per second of cooldown.
        #expect(found.map(\.time).map { ($0 * 10).rounded() / 10 } == [0.3, 1.3, 2.3, 3.3])
    }

    @Test func averagingSmoothsASinglePrediction() {
        var detector = detector(averaging: 3)
        var found: [Prediction] = []
        for (index, value)
            in ([Float](repeating: 0, count: 12) + [1.5, 1.5, 1.5, 1.5] + [Float](repeating: 0, count: 8)).enumerated()
        {
            if let prediction = detector.add([value], at: Double(index)), let hit = detector.detection(prediction) {
                found.append(hit)
            }
        }
        #expect(found.isEmpty)
    }

    @Test func eachSlotCarriesItsOwnStateFromItsPreviousWindow() {
        var detector = StreamingDetector(
            classifier: StateProbe(), window: 4, featureCount: 1,
            settings: DetectionSettings(offset: 2, threshold: 2, averaging: 1, rest: "none"))
        let predictions = (1...12).compactMap { detector.add([Float($0)], at: Double($0)) }
        // Windows end at samples 4, 6, 8, 10, 12: slots 0, 1, 0, 1, 0. A slot's first window ended
        // at 4 (slot 0) or 6 (slot 1); its count is how many windows it has seen.
        #expect(predictions.map { probed($0).windows } == [1, 1, 2, 2, 3])
        #expect(predictions.map { probed($0).first } == [4, 6, 4, 6, 4])
    }
}

@Suite struct EventScoreTests {
    private func detection(_ gesture: String, at time: Double) -> Prediction {
        Prediction(
            time: time, gesture: gesture, probability: 0.95, runnerUp: "rest", runnerUpProbability: 0.05,
            probabilities: [])
    }

    @Test func eventsAreTheRunsOfGestureLabels() throws {
        let labels = ["rest", "shake", "shake", "rest", "chop", "chop", "chop", "shake"]
        let timeline = try labels.enumerated().map { (time: Double($0), label: try ActivityLabel($1)) }
        #expect(
            GestureEvent.events(in: timeline) == [
                GestureEvent(gesture: "shake", start: 1, end: 2),
                GestureEvent(gesture: "chop", start: 4, end: 6),
                GestureEvent(gesture: "shake", start: 7, end: 7),
            ])
    }

    @Test func detectionsAreFoundMissedRepeatedOrFalse() {
        let events = [
            GestureEvent(gesture: "shake", start: 10, end: 14), GestureEvent(gesture: "chop", start: 20, end: 24),
            GestureEvent(gesture: "drive", start: 30, end: 34),
        ]
        let detections = [
            detection("shake", at: 11), detection("shake", at: 12.5), detection("chop", at: 24.5),
            detection("chop", at: 27), detection("drive", at: 5),
        ]
        let score = EventScore(detections: detections, events: events, minutes: 0.5, grace: 1)
        #expect(score.found == 2)
        #expect(score.missed == 1)
        #expect(score.repeats == 1)
        #expect(score.falseDetections == 2)
        #expect(score.falseDetectionsPerMinute == 4)
        #expect(score.delays == [1, 4.5])
    }

    /// Of 30 s, the three gestures cover 12: the two false detections came in 18 s of unknown motion.
    @Test func falseDetectionsPerHourCountOnlyTheTimeNoKnownGestureCovers() {
        let events = [
            GestureEvent(gesture: "shake", start: 10, end: 14), GestureEvent(gesture: "chop", start: 20, end: 24),
            GestureEvent(gesture: "drive", start: 30, end: 34),
        ]
        let score = EventScore(
            detections: [detection("drive", at: 5), detection("chop", at: 40)], events: events, minutes: 0.5)
        #expect(abs(score.unknownMinutes - 0.3) < 1e-9)
        #expect(abs(score.falseDetectionsPerHour - 400) < 1e-6)
        let twice = score + score
        #expect(abs(twice.unknownHours - 0.01) < 1e-9)
        #expect(abs(twice.falseDetectionsPerHour - 400) < 1e-6)
        #expect(EventScore.none.falseDetectionsPerHour == 0)
    }
}
