import Foundation
import GestureCore
import GestureMotion
import Testing

/// A still hand's readings at `rate` for `seconds`, with a turn at 3 rad/s wherever `moving` holds.
private func rows(
    rate: Double = 50, seconds: Double = 10, moving: (Double) -> Bool = { _ in false }
) -> [RecordingRow] {
    var random = SeededRandom(seed: 3, "alignment")
    return (0..<Int(seconds * rate)).map { index in
        let time = Double(index) / rate
        let noise = Vector3(
            random.normal(deviation: 0.01), random.normal(deviation: 0.01), random.normal(deviation: 0.01))
        let rotation = noise + (moving(time) ? Vector3(0, 0, 3 * sin(2 * .pi * time)) + [0, 0, 1] : .zero)
        let motion = DeviceMotion(
            attitude: Attitude(roll: 0, pitch: 0, yaw: 0), rotationRate: rotation, gravity: [0, 0, 1],
            userAcceleration: .zero)
        return RecordingRow(
            session: SessionID(rawValue: "s-1"), activity: .rest, timestamp: time, motion: motion,
            rawAcceleration: [0, 0, 1] + noise / 10, rawRotationRate: rotation)
    }
}

@Suite struct MotionAlignmentTests {
    @Test(arguments: [25.0, 100.0])
    func theMotionIsFoundWhereItIsNotWhereThePromptSaysItIs(rate: Double) {
        let take = rows(rate: rate) { (4.3...6.8).contains($0) }
        expect(MotionAlignment().align(take, prompt: 4...6.5), near: 4.3...6.8)
    }

    @Test func motionBeforeThePromptAndBumpsAreNotTheGesture() {
        let take = rows { (1...2).contains($0) || (5...6).contains($0) || (7.5...7.54).contains($0) }
        expect(MotionAlignment().align(take, prompt: 4...8), near: 5...6)
    }

    private func expect(
        _ found: AlignedMotion, near truth: ClosedRange<Double>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .motion(let span) = found else {
            Issue.record("found \(found), not motion", sourceLocation: sourceLocation)
            return
        }
        #expect(abs(span.lowerBound - truth.lowerBound) <= 0.05, sourceLocation: sourceLocation)
        #expect(abs(span.upperBound - truth.upperBound) <= 0.05, sourceLocation: sourceLocation)
    }

    @Test func aTakeWithoutMotionInsideThePromptIsSaidSo() {
        #expect(MotionAlignment().align(rows { (8...9).contains($0) }, prompt: 4...6.5) == .noMotion)
        #expect(MotionAlignment().align(Array(rows().prefix(100)), prompt: 4...6.5) == .noMotion)
    }

    @Test func aTakeThatIsAllPromptHasNoRestToCompareWith() {
        #expect(MotionAlignment().align(rows { _ in true }, prompt: 0...10) == .noRest)
    }
}
