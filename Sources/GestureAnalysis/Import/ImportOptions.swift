/// What a long-format file's numbers mean, where its columns do not say.
public struct ImportOptions: Sendable {
    public enum AccelerationUnit: String, Sendable, CaseIterable {
        case g
        /// m/s², divided by standard gravity.
        case metersPerSecondSquared = "m/s2"
    }

    public enum RotationUnit: String, Sendable, CaseIterable {
        case radiansPerSecond = "rad/s"
        case degreesPerSecond = "deg/s"
    }

    public var accelerationUnit: AccelerationUnit = .g
    public var rotationUnit: RotationUnit = .radiansPerSecond
    /// The accelerometer had gravity taken out already (a "linear acceleration" channel).
    public var gravityRemoved = false
    /// Samples per second, for files without a time column.
    public var sampleRate: Double?
    /// The user of every session, for files without a user column.
    public var user: String?

    public init() {}

    static let standardGravity = 9.806_65
}
