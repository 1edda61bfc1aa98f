import GestureCore
import GestureMotion
import GestureSensors

/// A second device recorded with the first, on the first's rows: a phone held with a board. Each
/// row gets the companion's reading at the row's time, and the rows go to a file of their own.
public struct Companion: Sendable {
    public let sensor: any MotionSensor
    /// The companion's clock, reading what the recorder's reads: the monotonic clock for real
    /// devices (the phone's readings are on it too), a simulated clock of its own for simulated time.
    public let clock: any SamplingClock
    /// What its columns are named with: `phone` gives `phone.rawAccelX`.
    public let prefix: String
    /// The rate to read it at, its profile's (a phone's page: 60 Hz), or else the recording's: its
    /// readings keep their own times, and each row takes the reading on the line between two.
    public let rate: Double?

    public init(sensor: any MotionSensor, clock: any SamplingClock, prefix: String, rate: Double? = nil) {
        self.sensor = sensor
        self.clock = clock
        self.prefix = prefix
        self.rate = rate
    }

    /// Starts the device at its rate, or the recording's, or the highest it can below that, and
    /// returns the rate it was set to.
    func start(recordingAt recordingRate: Double) throws(SensorError) -> Double {
        let rate = min(rate ?? recordingRate, sensor.info.maximumRate)
        try sensor.validate(rate: rate)
        return try sensor.start(rate: rate)
    }
}

/// The companion's readings at the first device's times: each interpolated between the readings
/// on either side of it, once the one after has come; the first held before, the last after. Its
/// motion is fused on its own, from these readings.
struct CompanionTrack {
    private var readings: Sampler.Readings.AsyncIterator
    private var before: RawSample?
    private var after: RawSample?
    private var ended = false
    private var filter = AttitudeFilter()
    /// The readings the companion lost (not read in time, or delivered too late).
    private(set) var lost = 0

    init(_ readings: Sampler.Readings) { self.readings = readings.makeAsyncIterator() }

    /// The companion's reading at `time`, on the recorder's clock: waits for the reading after it.
    mutating func reading(at time: Double) async throws -> CompanionReading {
        while !ended, after.map({ $0.time < time }) ?? true {
            guard let next = try await readings.next() else {
                ended = true
                break
            }
            lost += next.lostBefore
            (before, after) = (after, next.sample)
        }
        guard let after else { throw SensorError(device: "the companion", reason: "it gave no reading") }
        let sample = Self.interpolated(before ?? after, after, at: time)
        return CompanionReading(
            motion: filter.update(sample), rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate)
    }

    /// The reading at `time` on the line from `first` to `second`; the nearer one's outside them.
    static func interpolated(_ first: RawSample, _ second: RawSample, at time: Double) -> RawSample {
        let span = second.time - first.time
        let weight = span > 0 ? min(1, max(0, (time - first.time) / span)) : 1
        // A reading at the row's own time is taken exactly as it is.
        guard weight > 0, weight < 1 else {
            let nearer = weight == 0 ? first : second
            return RawSample(time: time, acceleration: nearer.acceleration, rotationRate: nearer.rotationRate)
        }
        return RawSample(
            time: time, acceleration: first.acceleration * (1 - weight) + second.acceleration * weight,
            rotationRate: first.rotationRate * (1 - weight) + second.rotationRate * weight)
    }
}
