import Foundation
import GestureCore
import GestureMotion
import GestureTestSupport
import Testing

/// Gravity in the body frame of a device at `roll` and `pitch` (Z-Y-X angles): what a still
/// accelerometer reads.
private func gravity(roll r: Double, pitch p: Double) -> Vector3 {
    Vector3(-sin(p), sin(r) * cos(p), cos(r) * cos(p))
}

/// Feeds `motion(t)` to a fresh filter at `rate` Hz for `seconds`, from t = 0.
private func run(
    rate: Double = 100, seconds: Double, filter: AttitudeFilter = AttitudeFilter(),
    _ motion: (Double) -> (acceleration: Vector3, rotationRate: Vector3)
)
    -> [(time: Double, sample: RawSample, output: DeviceMotion)]
{
    var filter = filter
    return (0...Int((seconds * rate).rounded())).map { k in
        let t = Double(k) / rate
        let (a, w) = motion(t)
        let sample = RawSample(time: t, acceleration: a, rotationRate: w)
        return (t, sample, filter.update(sample))
    }
}

@Suite struct AttitudeFilterTests {
    @Test func staticTiltGivesGravityRollAndPitch() {
        let (roll, pitch) = (0.3, -0.2)
        let g = gravity(roll: roll, pitch: pitch)
        let steps = run(seconds: 5) { _ in (g, .zero) }
        #expect(steps.count == 501)
        #expect(steps.map { distance($0.output.gravity, g) }.max()! < 1e-3)
        #expect(steps.map { abs($0.output.attitude.roll - roll) }.max()! < 1e-3)
        #expect(steps.map { abs($0.output.attitude.pitch - pitch) }.max()! < 1e-3)
        #expect(
            steps.map { distance($0.output.gravity + $0.output.userAcceleration, $0.sample.acceleration) }.max()!
                < 1e-12)
        #expect(steps.allSatisfy { $0.output.rotationRate == $0.sample.rotationRate })
    }

    @Test func gravityPlusUserAccelerationIsTheMeasuredAccelerationWhileMoving() {
        let steps = run(seconds: 3) { t in
            (Vector3(0.4 * sin(9 * t), 1.5 * cos(4 * t), 1 + 2 * sin(t)), Vector3(2 * sin(3 * t), -1, 0.5))
        }
        #expect(
            steps.map { distance($0.output.gravity + $0.output.userAcceleration, $0.sample.acceleration) }.max()!
                < 1e-12)
        #expect(steps.map { abs(magnitude($0.output.gravity) - 1) }.max()! < 1e-12)
    }

    @Test func constantYawRateIntegratesToYaw() {
        let rate = 0.5
        let steps = run(seconds: 4) { _ in ([0, 0, 1], [0, 0, rate]) }
        #expect(steps.map { angleDifference($0.output.attitude.yaw, wrapped(rate * $0.time)) }.max()! < 1e-3)
        #expect(steps.map { max(abs($0.output.attitude.roll), abs($0.output.attitude.pitch)) }.max()! < 1e-9)
    }

    @Test func yawWrapsIntoMinusPiToPi() {
        let steps = run(seconds: 10) { _ in ([0, 0, 1], [0, 0, 1]) }
        let last = steps.last!
        #expect(last.output.attitude.yaw > -.pi && last.output.attitude.yaw <= .pi)
        #expect(angleDifference(last.output.attitude.yaw, 10 - 4 * .pi) < 1e-3)
        #expect(abs(last.output.attitude.yaw - (10 - 4 * .pi)) < 1e-3)
    }

    @Test(arguments: [0.5, 1.0])
    func constantRollRateWithConsistentGravityFollowsTheAnalyticRoll(_ rate: Double) {
        let steps = run(seconds: 4) { t in (gravity(roll: rate * t, pitch: 0), [rate, 0, 0]) }
        #expect(steps.map { angleDifference($0.output.attitude.roll, wrapped(rate * $0.time)) }.max()! < 1e-3)
        #expect(steps.map { abs($0.output.attitude.pitch) }.max()! < 1e-3)
        #expect(steps.map { distance($0.output.gravity, gravity(roll: rate * $0.time, pitch: 0)) }.max()! < 1e-3)
    }

    @Test func stillDeviceConvergesToANewTiltAtTheFilterGain() {
        // Start level, then hold a 0.2 rad roll with the gyroscope reading zero: the estimate should
        // follow the accelerometer with time constant 1 / gain.
        let target = gravity(roll: 0.2, pitch: 0)
        let steps = run(seconds: 10, filter: AttitudeFilter(gain: 1)) { t in (t == 0 ? [0, 0, 1] : target, .zero) }
        let at1s = steps[100].output.attitude.roll
        #expect(abs(at1s - 0.2 * (1 - exp(-1))) < 0.01, "roll after 1 s: \(at1s)")
        #expect(abs(steps.last!.output.attitude.roll - 0.2) < 1e-3)
    }

    @Test func accelerationFarFrom1gIsIgnored() {
        // Level first; then an acceleration of 0.5 g sideways must not tilt the estimate.
        let steps = run(seconds: 3) { t in (t == 0 ? [0, 0, 1] : [0.5, 0, 0], .zero) }
        #expect(steps.map { distance($0.output.gravity, [0, 0, 1]) }.max()! < 1e-12)
    }

    @Test func firstSampleAlreadyHasTheTiltAndZeroYaw() {
        var filter = AttitudeFilter()
        #expect(filter.orientation == nil)
        let out = filter.update(
            RawSample(time: 7, acceleration: gravity(roll: -1, pitch: 0.7) * 1.02, rotationRate: [1, 2, 3]))
        #expect(abs(out.attitude.roll + 1) < 1e-12)
        #expect(abs(out.attitude.pitch - 0.7) < 1e-12)
        #expect(out.attitude.yaw == 0)
        #expect(filter.orientation != nil)
    }
}
