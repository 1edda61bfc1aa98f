import FoundationEssentials
import GestureCore
import Glibc

/// What a live view of a sensor shows, from the readings alone: the latest reading, the direction
/// of gravity, the rate achieved over the last second, and the readings that went wrong.
public struct SensorMonitor: Sendable {
    /// The rate the sensor was set to.
    public let rate: Double
    /// The sensor's range, where it is known: without it clipping is not counted.
    public let range: SensorRange?
    /// Seconds of readings the achieved rate is measured over.
    public static let rateSpan = 1.0

    /// Seconds over which the acceleration is smoothed into gravity: long enough to pass over a
    /// gesture's shakes, short enough to follow a board turned over.
    public static let gravityTimeConstant = 0.25

    public private(set) var latest: MonitorSnapshot?
    private var gravity: Vector3?
    private var recentTimes: [Double] = []
    private var counts = MonitorSnapshot.Counts()

    public init(rate: Double, range: SensorRange?) {
        self.rate = rate
        self.range = range
    }

    public mutating func add(_ reading: SensorReading) {
        let sample = reading.sample
        let gravity = smoothedGravity(sample)
        counts.readings += 1
        counts.lost += reading.lostBefore
        if let previous = latest?.sample,
            previous.acceleration == sample.acceleration, previous.rotationRate == sample.rotationRate
        {
            counts.held += 1
        }
        if range?.clips(acceleration: sample.acceleration, rotationRate: sample.rotationRate) == true {
            counts.clipped += 1
        }
        recentTimes.append(sample.time)
        if let first = recentTimes.firstIndex(where: { $0 > sample.time - Self.rateSpan }), first > 0 {
            recentTimes.removeFirst(first)
        }
        latest = MonitorSnapshot(sample: sample, gravity: gravity, achievedRate: achievedRate, counts: counts)
    }

    private mutating func smoothedGravity(_ sample: RawSample) -> Vector3 {
        let previousTime = latest?.sample.time ?? sample.time
        let step = max(0, sample.time - previousTime)
        let smoothed = gravity.map { $0 + (sample.acceleration - $0) * (step / (Self.gravityTimeConstant + step)) }
        gravity = smoothed ?? sample.acceleration
        return gravity!
    }

    /// Readings per second over the last `rateSpan` seconds: nil until two readings are that far apart.
    private var achievedRate: Double? {
        guard let first = recentTimes.first, let last = recentTimes.last, last > first else { return nil }
        // The span holds the readings after `first`: one interval each.
        return Double(recentTimes.count - 1) / (last - first)
    }
}

/// The sensor as its live view shows it at one reading.
public struct MonitorSnapshot: Sendable, Equatable {
    public var sample: RawSample
    /// The acceleration smoothed: gravity, in g, in the device's frame, while the device is not
    /// accelerating.
    public var gravity: Vector3
    public var achievedRate: Double?
    public var counts: Counts

    /// Readings since the view began.
    public struct Counts: Sendable, Equatable {
        public var readings = 0
        /// Readings the device sent that were never delivered in time.
        public var lost = 0
        /// Readings that repeat the one before exactly, on every axis: a device holding its last value.
        public var held = 0
        /// Readings at the sensor's range on some axis.
        public var clipped = 0

        public init(readings: Int = 0, lost: Int = 0, held: Int = 0, clipped: Int = 0) {
            self.readings = readings
            self.lost = lost
            self.held = held
            self.clipped = clipped
        }
    }

    /// Roll and pitch of the device, in radians, from gravity as the recorder's attitude has them.
    public var roll: Double { atan2(gravity.y, gravity.z) }
    public var pitch: Double { atan2(-gravity.x, (gravity.y * gravity.y + gravity.z * gravity.z).squareRoot()) }

    /// The device axis that points most nearly up, with its sign, e.g. "+z" for a board lying face up.
    public var upAxis: String {
        let axis = (0..<3).max { abs(gravity[$0]) < abs(gravity[$1]) }!
        return (gravity[axis] < 0 ? "-" : "+") + ["x", "y", "z"][axis]
    }
}
