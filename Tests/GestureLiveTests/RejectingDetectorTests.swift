import GestureCore
import GestureLive
import Testing

/// A classifier sure of `shake` on windows whose mean is below 1, of `other` (background motion)
/// on the rest, that rejects windows whose mean is above 2 as unknown motion.
private struct Rejecting: WindowClassifier {
    let classNames = ["other", "rest", "shake"]
    var initialState: Float { 0 }

    func step(_ window: [Float], state: inout Float) -> [Float] {
        state = window.reduce(0, +) / Float(window.count)
        return state < 1 || state > 2 ? [0.01, 0.01, 0.98] : [0.98, 0.01, 0.01]
    }

    func rejects(_ probabilities: [Float], state: Float) -> Bool { state > 2 }
}

@Suite struct RejectingDetectorTests {
    private func detections(of values: [Float], reject: Bool = true) -> [Prediction] {
        var detector = StreamingDetector(
            classifier: Rejecting(), window: 4, featureCount: 1,
            settings: DetectionSettings(offset: 2, threshold: 0.9, cooldown: 0.5, reject: reject))
        return values.enumerated().compactMap { index, value in
            detector.add([value], at: Double(index)).flatMap { detector.detection($0) }
        }
    }

    @Test func aRejectedWindowIsNeverDetectedAndOffRestoresIt() {
        let unknown = [Float](repeating: 3, count: 12)
        #expect(detections(of: unknown).isEmpty)
        #expect(detections(of: unknown, reject: false).count == 5)
        #expect(detections(of: [Float](repeating: 0, count: 12)).count == 5)
    }

    @Test func theRejectionIsMarkedOnEveryPrediction() {
        var detector = StreamingDetector(
            classifier: Rejecting(), window: 4, featureCount: 1, settings: DetectionSettings(offset: 2))
        let predictions = ([Float](repeating: 0, count: 6) + [Float](repeating: 3, count: 6)).enumerated()
            .compactMap { detector.add([$1], at: Double($0)) }
        #expect(predictions.map(\.isUnknown) == [false, false, false, true, true])
        #expect(predictions.map(\.gesture) == ["shake", "shake", "other", "shake", "shake"])
    }

    @Test func backgroundMotionIsNeverDetected() {
        #expect(detections(of: [Float](repeating: 1.5, count: 12)).isEmpty)
        #expect(detections(of: [Float](repeating: 1.5, count: 12), reject: false).isEmpty)
    }
}
