import GestureCore

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
    /// The label of every row, for files without a label column: `other` brings in everyday motion as
    /// background that training learns never to report.
    public var label: ActivityLabel?
    /// Which rows to reflect onto the other wrist as they are read, e.g. those whose `side` is `left`.
    public var mirror: MirrorRule?

    public init() {}

    static let standardGravity = 9.806_65
}

/// Rows whose `column` holds `value` are read through `mirroring`: a watch worn on the other wrist
/// becomes the mirror image of one worn on this wrist, so both arms' recordings look alike.
public struct MirrorRule: Sendable, Equatable {
    public var column: String
    public var value: String
    public var mirroring: Mirroring

    /// - Parameter condition: `<column>=<value>`, e.g. `side=left`.
    public init(_ condition: String, mirroring: Mirroring) throws(AnalysisError) {
        let parts = condition.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw AnalysisError("'\(condition)' is not <column>=<value>, e.g. side=left", setting: .mirror)
        }
        column = parts[0]
        value = parts[1]
        self.mirroring = mirroring
    }
}
