/// One labeled sample of a recording: a line of a user's CSV.
public struct RecordingRow: Sendable, Equatable {
    public var session: SessionID
    public var activity: ActivityLabel
    /// Seconds since the session started, on the sensor's clock.
    public var timestamp: Double
    public var motion: DeviceMotion
    /// The accelerometer (g) and gyroscope (rad/s) as read, before fusion.
    public var rawAcceleration: Vector3
    public var rawRotationRate: Vector3

    public init(
        session: SessionID, activity: ActivityLabel, timestamp: Double, motion: DeviceMotion,
        rawAcceleration: Vector3, rawRotationRate: Vector3
    ) {
        self.session = session
        self.activity = activity
        self.timestamp = timestamp
        self.motion = motion
        self.rawAcceleration = rawAcceleration
        self.rawRotationRate = rawRotationRate
    }
}
