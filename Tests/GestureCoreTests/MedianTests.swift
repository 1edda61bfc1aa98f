import GestureCore
import Testing

@Suite struct MedianTests {
    @Test func theMedianIsTheMiddleOrTheMeanOfTheTwoMiddleValues() {
        #expect([3.0, 1, 2].median == 2)
        #expect([4.0, 1, 3, 2].median == 2.5)
        #expect([Double]().median == nil)
    }

    @Test func theMedianIntervalStaysWithinSessionsAndSkipsRepeatedTimes() {
        func row(_ session: String, _ time: Double) -> RecordingRow {
            RecordingRow(
                session: SessionID(rawValue: session), activity: .rest, timestamp: time,
                motion: DeviceMotion(values: Array(repeating: 0, count: 12)), rawAcceleration: .zero,
                rawRotationRate: .zero)
        }
        // a: 0.02, 0 (repeated), 0.02, 0.06; the jump into b and b's restart are not intervals.
        let rows = [
            row("a", 0), row("a", 0.02), row("a", 0.02), row("a", 0.04), row("a", 0.1), row("b", 0), row("b", 0.04),
        ]
        #expect(abs(rows.medianInterval! - 0.03) < 1e-12)
        #expect([row("a", 0)].medianInterval == nil)
    }
}
