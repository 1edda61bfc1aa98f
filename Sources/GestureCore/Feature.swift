/// A numeric column of a recording, by the name the CSV header gives it, with its unit.
public struct Feature: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    public let unit: String
    /// The column's position among `RecordingCSV.columns` after sessionId, activity and timestamp.
    let index: Int

    public var description: String { name }

    /// The twelve device-motion features, then the raw accelerometer and gyroscope.
    public static let all: [Feature] = RecordingCSV.columns.dropFirst(3).enumerated().map { index, name in
        Feature(name: name, unit: unit(of: index), index: index)
    }

    public static let rawAcceleration = Array(all[12..<15])
    public static let rawRotationRate = Array(all[15..<18])

    public init(named name: String) throws(UnknownFeature) {
        guard let feature = Self.all.first(where: { $0.name == name }) else { throw UnknownFeature(name: name) }
        self = feature
    }

    private init(name: String, unit: String, index: Int) {
        self.name = name
        self.unit = unit
        self.index = index
    }

    private static func unit(of index: Int) -> String {
        switch index {
        case 0..<3: "rad"
        case 3..<6, 15..<18: "rad/s"
        default: "g"
        }
    }

    public func value(of row: RecordingRow) -> Double {
        value(motion: row.motion, acceleration: row.rawAcceleration, rotationRate: row.rawRotationRate)
    }

    /// The feature of a reading: its device motion and the raw accelerometer and gyroscope.
    public func value(motion: DeviceMotion, acceleration: Vector3, rotationRate: Vector3) -> Double {
        switch index {
        case 0: motion.attitude.roll
        case 1: motion.attitude.pitch
        case 2: motion.attitude.yaw
        case 3..<6: motion.rotationRate[index - 3]
        case 6..<9: motion.gravity[index - 6]
        case 9..<12: motion.userAcceleration[index - 9]
        case 12..<15: acceleration[index - 12]
        default: rotationRate[index - 15]
        }
    }
}

/// A feature name that is not a column of recordings.
public struct UnknownFeature: Error, Equatable, CustomStringConvertible {
    public var name: String

    public var description: String {
        "no feature '\(name)'; the features are \(Feature.all.map(\.name).joined(separator: ", "))"
    }
}
