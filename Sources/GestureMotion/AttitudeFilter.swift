import FoundationEssentials
import GestureCore
import Glibc

/// Device motion from accelerometer and gyroscope, without a magnetometer: a complementary filter
/// that integrates the gyroscope and pulls the estimated gravity toward the measured acceleration
/// while the device is not accelerating. Yaw starts at zero and is free to drift, as Core Motion's
/// xArbitraryZVertical reference frame.
public struct AttitudeFilter: Sendable {
    /// How fast, in 1/s, gravity follows the accelerometer when the device is still.
    public var gain: Double
    /// How far, in g, the acceleration's magnitude may stray from 1 g before it is ignored.
    public var accelerationTolerance: Double

    public private(set) var orientation: Quaternion?
    private var lastTime: Double?

    public init(gain: Double = 1.0, accelerationTolerance: Double = 0.15) {
        self.gain = gain
        self.accelerationTolerance = accelerationTolerance
    }

    public mutating func update(_ sample: RawSample) -> DeviceMotion {
        let q = nextOrientation(sample)
        orientation = q
        lastTime = sample.time
        let gravity = q.unrotate([0, 0, 1])
        return DeviceMotion(
            attitude: q.attitude, rotationRate: sample.rotationRate,
            gravity: gravity, userAcceleration: sample.acceleration - gravity)
    }

    private func nextOrientation(_ sample: RawSample) -> Quaternion {
        let a = sample.acceleration
        let magnitude = length(a)
        guard let q = orientation, let lastTime else {
            return magnitude > 0 ? Self.level(gravity: a) : .identity
        }
        let dt = max(0, sample.time - lastTime)
        // Turn by the gyroscope first, then pull the turned gravity toward this sample's
        // acceleration: comparing with the previous orientation's gravity would lead the true
        // attitude by one sample's rotation.
        let turned = q * Quaternion(rotationRate: sample.rotationRate, seconds: dt)
        let trust = max(0, 1 - abs(magnitude - 1) / accelerationTolerance)
        guard trust > 0 else { return turned.normalized }
        let correction = gain * trust * cross(a / magnitude, turned.unrotate([0, 0, 1]))
        return (turned * Quaternion(rotationRate: correction, seconds: dt)).normalized
    }

    /// The orientation with zero yaw whose gravity points along `a`.
    static func level(gravity a: Vector3) -> Quaternion {
        Quaternion(
            Attitude(
                roll: atan2(a.y, a.z),
                pitch: atan2(-a.x, (a.y * a.y + a.z * a.z).squareRoot()),
                yaw: 0))
    }
}
