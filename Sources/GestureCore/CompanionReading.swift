/// A second device's reading on a row of the first's (a phone recorded with a board): taken at the
/// row's time, fused on its own, and written after the first device's columns under its prefix.
public struct CompanionReading: Sendable, Equatable {
    public var motion: DeviceMotion
    public var rawAcceleration: Vector3
    public var rawRotationRate: Vector3

    public init(motion: DeviceMotion, rawAcceleration: Vector3, rawRotationRate: Vector3) {
        self.motion = motion
        self.rawAcceleration = rawAcceleration
        self.rawRotationRate = rawRotationRate
    }
}

extension RecordingCSV {
    /// A companion's columns: the first device's motion and raw columns, each as `prefix.name`.
    public static func companionColumns(prefix: String) -> [String] {
        columns.dropFirst(3).map { "\(prefix).\($0)" }
    }

    /// The header of a file whose rows carry a companion's readings, or the plain one without.
    public static func header(companion prefix: String?) -> String {
        guard let prefix else { return header }
        return ([header] + companionColumns(prefix: prefix)).joined(separator: ",")
    }

    /// A row with its companion's reading after it.
    public static func line(for row: RecordingRow, companion: CompanionReading) -> String {
        var fields = [line(for: row)]
        fields.reserveCapacity(companionColumns(prefix: "").count + 1)
        appendFields(
            motion: companion.motion, rawAcceleration: companion.rawAcceleration,
            rawRotationRate: companion.rawRotationRate, to: &fields)
        return fields.joined(separator: ",")
    }
}
