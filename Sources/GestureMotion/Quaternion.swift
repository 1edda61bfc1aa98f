import FoundationEssentials
import GestureCore
import Glibc

/// A rotation, as a unit quaternion taking body coordinates to world coordinates.
public struct Quaternion: Sendable, Equatable {
    public var w: Double
    public var v: Vector3

    public static let identity = Quaternion(w: 1, v: .zero)

    public init(w: Double, v: Vector3) {
        self.w = w
        self.v = v
    }

    /// A rotation by `angle` radians about a unit `axis`.
    public init(axis: Vector3, angle: Double) {
        w = cos(angle / 2)
        v = axis * sin(angle / 2)
    }

    /// The rotation of the aerospace Z-Y-X angles: yaw, then pitch, then roll.
    public init(_ attitude: Attitude) {
        self =
            Quaternion(axis: [0, 0, 1], angle: attitude.yaw)
            * Quaternion(axis: [0, 1, 0], angle: attitude.pitch)
            * Quaternion(axis: [1, 0, 0], angle: attitude.roll)
    }

    /// The rotation a body turning at `rate` (rad/s, body axes) makes in `seconds`.
    public init(rotationRate rate: Vector3, seconds: Double) {
        let speed = (rate * rate).sum().squareRoot()
        self = speed > 0 ? Quaternion(axis: rate / speed, angle: speed * seconds) : .identity
    }

    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - (a.v * b.v).sum(),
            v: a.w * b.v + b.w * a.v + cross(a.v, b.v))
    }

    public var conjugate: Quaternion { Quaternion(w: w, v: -v) }

    public var normalized: Quaternion {
        let length = (w * w + (v * v).sum()).squareRoot()
        return Quaternion(w: w / length, v: v / length)
    }

    /// A body vector in world coordinates.
    public func rotate(_ u: Vector3) -> Vector3 {
        let t = 2 * cross(v, u)
        return u + w * t + cross(v, t)
    }

    /// A world vector in body coordinates.
    public func unrotate(_ u: Vector3) -> Vector3 { conjugate.rotate(u) }

    public var attitude: Attitude {
        let (x, y, z) = (v.x, v.y, v.z)
        return Attitude(
            roll: atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
            pitch: asin(max(-1, min(1, 2 * (w * y - z * x)))),
            yaw: atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))
    }
}

public func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
    Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

public func length(_ a: Vector3) -> Double { (a * a).sum().squareRoot() }
