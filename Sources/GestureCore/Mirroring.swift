/// One of the device's axes.
public enum DeviceAxis: String, Sendable, CaseIterable {
    case x, y, z

    var index: Int {
        switch self {
        case .x: 0
        case .y: 1
        case .z: 2
        }
    }
}

/// The device frame reflected across the plane normal to one axis: what a watch on the other wrist
/// reads for the mirror image of a movement. A vector (acceleration, gravity) flips its component
/// along the axis. A rotation rate is about axes, so its two components about the other axes flip;
/// so do the attitude angles about them (roll is about x, pitch about y, yaw about z).
public struct Mirroring: Sendable, Equatable {
    public var axis: DeviceAxis

    public init(across axis: DeviceAxis) {
        self.axis = axis
    }

    public func vector(_ vector: Vector3) -> Vector3 {
        var reflected = vector
        reflected[axis.index] = -reflected[axis.index]
        return reflected
    }

    public func rotation(_ rotation: Vector3) -> Vector3 {
        -vector(rotation)
    }

    public func sample(_ sample: RawSample) -> RawSample {
        RawSample(
            time: sample.time, acceleration: vector(sample.acceleration), rotationRate: rotation(sample.rotationRate))
    }

    public func motion(_ motion: DeviceMotion) -> DeviceMotion {
        let angles = rotation(Vector3(motion.attitude.roll, motion.attitude.pitch, motion.attitude.yaw))
        return DeviceMotion(
            attitude: Attitude(roll: angles.x, pitch: angles.y, yaw: angles.z),
            rotationRate: rotation(motion.rotationRate), gravity: vector(motion.gravity),
            userAcceleration: vector(motion.userAcceleration))
    }

    public func row(_ row: RecordingRow) -> RecordingRow {
        var reflected = row
        reflected.motion = motion(row.motion)
        reflected.rawAcceleration = vector(row.rawAcceleration)
        reflected.rawRotationRate = rotation(row.rawRotationRate)
        return reflected
    }
}
