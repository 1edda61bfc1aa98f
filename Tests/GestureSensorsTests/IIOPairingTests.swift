import GestureCore
import Testing

@testable import GestureSensors

/// Pairing an accelerometer's scans with another device's gyroscope scans by kernel timestamp.
@Suite struct IIOPairingTests {
    private func gyro(_ time: Double) -> IIOStream.Scan {
        IIOStream.Scan(time: time, acceleration: nil, rotationRate: [time, 0, 0])
    }

    /// The VM test's off-by-one: the gyroscope's buffer started a frame after the accelerometer's,
    /// and its first scan, 30 ms away, was taken for the first accelerometer scan and every pair
    /// after it was one frame apart.
    @Test func aScanWithoutAPartnerWithinTheToleranceGetsNone() {
        var pending = [gyro(1.0301), gyro(1.0502)]
        #expect(IIOStream.take(nearest: 1.0, within: 0.02, from: &pending) == nil)
        #expect(pending.count == 2)
        #expect(IIOStream.take(nearest: 1.03, within: 0.02, from: &pending)?.time == 1.0301)
        #expect(IIOStream.take(nearest: 1.05, within: 0.02, from: &pending)?.time == 1.0502)
        #expect(pending.isEmpty)
    }

    /// A gyroscope 15 ms behind its accelerometer at 50 Hz, as when its report is delivered late,
    /// still pairs with its own frame, not the next.
    @Test func scansOutOfPhasePairOneToOne() {
        var pending = (0..<4).map { gyro(1.015 + Double($0) * 0.02) }
        let pairs = (0..<4).map { IIOStream.take(nearest: 1 + Double($0) * 0.02, within: 0.02, from: &pending)?.time }
        #expect(zip(pairs, [1.015, 1.035, 1.055, 1.075]).allSatisfy { abs(($0 ?? 0) - $1) < 1e-12 })
    }

    @Test func theNearestIsTakenAndOlderScansAreUsedUp() {
        var pending = [gyro(0.95), gyro(0.996), gyro(1.003), gyro(1.02)]
        #expect(IIOStream.take(nearest: 1.0, within: 0.01, from: &pending)?.time == 1.003)
        #expect(pending.map(\.time) == [1.02])
    }
}
