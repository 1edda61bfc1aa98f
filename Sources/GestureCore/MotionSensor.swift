/// What a sensor is, as `gesture devices` shows it.
public struct SensorInfo: Sendable, Equatable {
    /// What to pass to `--device`.
    public var id: String
    public var name: String
    /// The highest rate, in Hz, the device can sample at.
    public var maximumRate: Double
    /// Where it is: a device node, or "built in".
    public var location: String

    public init(id: String, name: String, maximumRate: Double, location: String = "built in") {
        self.id = id
        self.name = name
        self.maximumRate = maximumRate
        self.location = location
    }
}

/// The largest readings a sensor can give: beyond them it clips.
public struct SensorRange: Sendable, Equatable {
    /// g.
    public var acceleration: Double
    /// rad/s.
    public var rotationRate: Double

    public init(acceleration: Double, rotationRate: Double) {
        self.acceleration = acceleration
        self.rotationRate = rotationRate
    }

    /// Whether a reading is at the range on any axis: one 16-bit step below it counts as at it.
    public func clips(acceleration: Vector3, rotationRate: Vector3) -> Bool {
        let accelerationLimit = self.acceleration * (1 - 1.5 / 32768)
        let rotationLimit = self.rotationRate * (1 - 1.5 / 32768)
        return (0..<3).contains { abs(acceleration[$0]) >= accelerationLimit || abs(rotationRate[$0]) >= rotationLimit }
    }
}

/// Who decides when a sample is taken.
public enum SensorPacing: Sendable {
    /// The sampler's clock: `read(now:)` returns the reading at that instant.
    case polled
    /// The device's own timer: `read(now:)` blocks until the device delivers its next reading.
    case deviceTimed
}

public struct SensorError: Error, Equatable, CustomStringConvertible {
    public var device: String
    public var reason: String

    public init(device: String, reason: String) {
        self.device = device
        self.reason = reason
    }

    public var description: String { "\(device): \(reason)" }
}

/// An accelerometer and gyroscope: simulated, replayed, IIO or evdev.
public protocol MotionSensor: AnyObject, Sendable {
    var info: SensorInfo { get }
    var pacing: SensorPacing { get }
    /// Prepares the device to deliver `rate` Hz and returns the rate it actually runs at.
    func start(rate: Double) throws(SensorError) -> Double
    /// The next reading, or nil when the device dropped it.
    func read(now: Double) throws(SensorError) -> RawSample?
    func stop()
    /// What the user should know about how the device is read, once it has started.
    var warnings: [String] { get }
    /// Readings the device sent that `read(now:)` could not return: dropped because they were not
    /// read in time, or delivered after the output had passed their time. At least this many.
    var lostReadings: Int { get }
}

extension MotionSensor {
    public var warnings: [String] { [] }
    public var lostReadings: Int { 0 }

    /// Rejects a rate that is not positive, slower than a reading every ten seconds, or beyond
    /// what the device can do.
    public func validate(rate: Double) throws(SensorError) {
        guard rate.isFinite, rate > 0 else {
            throw SensorError(device: info.id, reason: "rate \(rate) Hz is not a positive number")
        }
        guard rate >= 0.1 else {
            throw SensorError(device: info.id, reason: "rate \(rate) Hz is below 0.1 Hz, a reading every ten seconds")
        }
        guard rate <= info.maximumRate else {
            throw SensorError(
                device: info.id, reason: "rate \(rate) Hz exceeds the device's maximum of \(info.maximumRate) Hz")
        }
    }
}

/// A gesture the person holding the sensor is asked to perform, with times on the sensor's clock.
public struct Performance: Sendable, Equatable {
    public var user: UserID
    public var gesture: ActivityLabel
    public var take: Int
    /// The whole session the take belongs to: rest, the gesture, rest.
    public var sessionStart: Double
    public var sessionEnd: Double
    /// When the prompt said go, and stop.
    public var go: Double
    public var stop: Double

    public init(
        user: UserID, gesture: ActivityLabel, take: Int, sessionStart: Double, sessionEnd: Double,
        go: Double, stop: Double
    ) {
        self.user = user
        self.gesture = gesture
        self.take = take
        self.sessionStart = sessionStart
        self.sessionEnd = sessionEnd
        self.go = go
        self.stop = stop
    }
}

/// A sensor that moves by itself when a gesture is prompted: the simulated hand.
public protocol GesturePerformer: MotionSensor {
    func perform(_ performance: Performance)
}
