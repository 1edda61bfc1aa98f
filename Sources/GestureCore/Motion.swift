/// A three-axis reading in the sensor's frame.
public typealias Vector3 = SIMD3<Double>

/// One reading of the inertial sensor, as the device delivered it.
public struct RawSample: Sendable, Equatable {
    /// Seconds on the sensor's monotonic clock.
    public var time: Double
    /// Specific force in g: a device lying still, face up, reads (0, 0, +1).
    public var acceleration: Vector3
    /// Angular velocity in rad/s, right-handed about the device axes.
    public var rotationRate: Vector3

    public init(time: Double, acceleration: Vector3, rotationRate: Vector3) {
        self.time = time
        self.acceleration = acceleration
        self.rotationRate = rotationRate
    }
}

/// Orientation as aerospace Z-Y-X angles, in radians. Yaw has an arbitrary zero.
public struct Attitude: Sendable, Equatable {
    public var roll: Double
    public var pitch: Double
    public var yaw: Double

    public init(roll: Double, pitch: Double, yaw: Double) {
        self.roll = roll
        self.pitch = pitch
        self.yaw = yaw
    }
}

/// The twelve device-motion features Machine Learning by Tutorials' recorder took from Core Motion.
///
/// `gravity + userAcceleration` equals the measured acceleration.
public struct DeviceMotion: Sendable, Equatable {
    public var attitude: Attitude
    public var rotationRate: Vector3
    public var gravity: Vector3
    public var userAcceleration: Vector3

    public init(attitude: Attitude, rotationRate: Vector3, gravity: Vector3, userAcceleration: Vector3) {
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
    }

    /// Feature names, in the order of `values`, as the book's notebook named the columns.
    public static let featureNames = [
        "roll", "pitch", "yaw",
        "rotX", "rotY", "rotZ",
        "gravX", "gravY", "gravZ",
        "accelX", "accelY", "accelZ",
    ]

    public var values: [Double] {
        [
            attitude.roll, attitude.pitch, attitude.yaw,
            rotationRate.x, rotationRate.y, rotationRate.z,
            gravity.x, gravity.y, gravity.z,
            userAcceleration.x, userAcceleration.y, userAcceleration.z,
        ]
    }

    /// Builds a value from twelve numbers in `featureNames` order.
    public init<C: Collection<Double>>(values: C) {
        precondition(values.count == 12, "device motion has 12 features")
        let v = Array(values)
        self.init(
            attitude: Attitude(roll: v[0], pitch: v[1], yaw: v[2]),
            rotationRate: Vector3(v[3], v[4], v[5]),
            gravity: Vector3(v[6], v[7], v[8]),
            userAcceleration: Vector3(v[9], v[10], v[11]))
    }
}
