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

    /// Features computed from the columns that do not depend on how the device sits: the size of
    /// the user acceleration and of the rotation rate, and their parts along gravity and across it.
    public static let orientationFree: [Feature] = [
        "accelMagnitude", "rotMagnitude", "accelVertical", "rotVertical", "accelHorizontal", "rotHorizontal",
    ].enumerated().map { offset, name in
        Feature(name: name, unit: offset % 2 == 0 ? "g" : "rad/s", index: all.count + offset)
    }

    public init(named name: String) throws(UnknownFeature) {
        guard let feature = (Self.all + Self.orientationFree).first(where: { $0.name == name }) else {
            throw UnknownFeature(name: name)
        }
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
        case 15..<18: rotationRate[index - 15]
        default: orientationFree(motion, part: index - 18)
        }
    }

    /// Parts 0–5 of `orientationFree`: even parts of the user acceleration, odd of the rotation rate.
    private func orientationFree(_ motion: DeviceMotion, part: Int) -> Double {
        let vector = part % 2 == 0 ? motion.userAcceleration : motion.rotationRate
        let length = (motion.gravity * motion.gravity).sum().squareRoot()
        let down = length > 0 ? motion.gravity / length : Vector3(0, 0, -1)
        let vertical = (vector * down).sum()
        switch part / 2 {
        case 0: return (vector * vector).sum().squareRoot()
        case 1: return vertical
        default: return max(0, (vector * vector).sum() - vertical * vertical).squareRoot()
        }
    }
}

/// A feature name that is not a column of recordings.
public struct UnknownFeature: Error, Equatable, CustomStringConvertible {
    public var name: String

    public var description: String {
        "no feature '\(name)'; the features are \((Feature.all + Feature.orientationFree).map(\.name).joined(separator: ", "))"
    }
}
