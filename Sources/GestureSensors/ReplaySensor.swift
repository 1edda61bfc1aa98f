import FoundationEssentials
import GestureCore
import Synchronization

/// Plays a recording's raw readings back as a sensor, at their recorded pace on the clock it is
/// given: with the monotonic clock in real time, with a manual clock as fast as it can.
///
/// Sessions follow one another in file order, each one sample period after the last one ended,
/// and the gaps within a session are kept.
public final class ReplaySensor: MotionSensor {
    public let info: SensorInfo
    public var pacing: SensorPacing { .deviceTimed }
    /// The rate the recording was made at, from its median sample interval.
    public let recordedRate: Double

    private let clock: any SamplingClock
    private let offsets: [Double]
    private let readings: [RecordingRow]
    /// When the first reading was asked for, and which reading comes next.
    private let state = Mutex<(start: Double?, next: Int)>((nil, 0))

    /// Each reading's time since the first, as it is played, with its recorded label.
    public var timeline: [(time: Double, label: ActivityLabel)] {
        zip(offsets, readings).map { ($0, $1.activity) }
    }

    public init(file: String, clock: any SamplingClock) throws(SensorError) {
        let id = "replay:\(file)"
        let rows: [RecordingRow]
        do {
            rows = try RecordingCSV.rows(atPath: file)
        } catch .malformed(let error) {
            throw SensorError(device: id, reason: "not a recording: \(error)")
        } catch {
            throw SensorError(device: id, reason: "\(error)")
        }
        guard rows.count > 1 else { throw SensorError(device: id, reason: "\(file) holds fewer than two samples") }
        try Self.checkTimes(rows, device: id)
        // Rounded to a millionth of a hertz, so that asking for the recorded rate is not refused
        // over the last bit of the median interval.
        recordedRate = (1e6 / (rows.medianInterval ?? 0.01)).rounded() / 1e6
        offsets = Self.offsets(rows, period: 1 / recordedRate)
        readings = rows
        self.clock = clock
        info = SensorInfo(id: id, name: "replay of \(file)", maximumRate: recordedRate)
    }

    /// Replays at the recorded rate, whatever rate was asked for.
    public func start(rate: Double) throws(SensorError) -> Double {
        state.withLock { $0 = (nil, 0) }
        return recordedRate
    }

    public func stop() {}

    /// Whether every reading has been played.
    public var isFinished: Bool { state.withLock { $0.next >= readings.count } }

    public func read(now: Double) throws(SensorError) -> RawSample? {
        let (start, index) = state.withLock { state in
            let start = state.start ?? now
            defer { state = (start, state.next + 1) }
            return (start, state.next)
        }
        guard index < readings.count else {
            throw SensorError(device: info.id, reason: "the recording ended after \(readings.count.counting("sample"))")
        }
        let time = start + offsets[index]
        clock.sleep(until: time)
        return RawSample(
            time: time, acceleration: readings[index].rawAcceleration,
            rotationRate: readings[index].rawRotationRate)
    }

    /// The longest pause a replay plays: a longer one is a broken timestamp, not a recording.
    public static let longestPause = 60.0

    /// Within a session, each timestamp must come after the one before it, by no more than `longestPause`.
    private static func checkTimes(_ rows: [RecordingRow], device: String) throws(SensorError) {
        for index in rows.indices.dropFirst() where rows[index].session == rows[index - 1].session {
            let step = rows[index].timestamp - rows[index - 1].timestamp
            guard step > 0, step <= longestPause else {
                throw SensorError(
                    device: device,
                    reason:
                        "row \(index + 1) (session \(rows[index].session)): timestamp \(rows[index].timestamp) is "
                        + (step > 0 ? "more than \(Int(longestPause)) s after" : "not after") + " the one before it")
            }
        }
    }

    /// Each row's time since the first, sessions laid end to end.
    private static func offsets(_ rows: [RecordingRow], period: Double) -> [Double] {
        var offsets: [Double] = []
        offsets.reserveCapacity(rows.count)
        var sessionStart = 0.0
        for (index, row) in rows.enumerated() {
            if index > 0, row.session != rows[index - 1].session {
                sessionStart = offsets[index - 1] + period - row.timestamp
            }
            offsets.append(sessionStart + row.timestamp - rows[0].timestamp)
        }
        return offsets
    }

}
