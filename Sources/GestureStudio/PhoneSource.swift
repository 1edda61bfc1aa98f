import GestureCore

/// Which of the browser's motion APIs the phone's page reads, and so the units and signs of its
/// numbers: the profile that turns them into the recorder's g and rad/s, in the recorder's frame
/// (x to the right of the screen, y to its top, z out of it; lying still face up reads +1 g on z).
///
/// The page sends each reading as the API gives it, `[time, x, y, z, r1, r2, r3]`, time in ms on the
/// phone's clock (the page's `performance.now()` timeline).
public enum PhoneSource: String, Codable, Sendable, CaseIterable {
    /// The Generic Sensor API (Chrome on Android): `Accelerometer` in m/s² with gravity, +9.81 on z
    /// face up, and `Gyroscope` x, y, z in rad/s.
    case genericSensor = "generic-sensor"
    /// `DeviceMotionEvent` as the W3C specifies it and Chrome and Firefox on Android report it:
    /// `accelerationIncludingGravity` in m/s², +9.81 on z face up, and `rotationRate` alpha, beta,
    /// gamma in °/s, about z, x and y.
    case deviceMotion = "device-motion"
    /// `DeviceMotionEvent` in Safari on iOS: the same, but acceleration with the opposite sign on
    /// every axis (Core Motion's convention: −9.81 on z face up).
    case deviceMotionIOS = "device-motion-ios"

    /// Standard gravity, m/s² per g.
    static let standardGravity = 9.80665

    /// What `gesture devices` and the catalog call the phone read this way.
    public var name: String {
        switch self {
        case .genericSensor: "phone (Generic Sensor API)"
        case .deviceMotion: "phone (DeviceMotionEvent)"
        case .deviceMotionIOS: "phone (DeviceMotionEvent, iOS signs)"
        }
    }

    /// A reading's values in g and rad/s, on the recorder's axes.
    public func sample(_ values: ArraySlice<Double>, at time: Double) -> RawSample {
        let v = Array(values)
        let acceleration = Vector3(v[0], v[1], v[2]) * (self == .deviceMotionIOS ? -1 : 1) / Self.standardGravity
        let rotationRate =
            switch self {
            case .genericSensor: Vector3(v[3], v[4], v[5])
            case .deviceMotion, .deviceMotionIOS: Vector3(v[4], v[5], v[3]) * (Double.pi / 180)
            }
        return RawSample(time: time, acceleration: acceleration, rotationRate: rotationRate)
    }
}
