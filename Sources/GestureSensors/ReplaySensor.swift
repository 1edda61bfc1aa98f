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
            rows = try RecordingCSV.rows(in: String(decoding: readFile(file), as: UTF8.self), file: file)
        } catch let error as CSVError {
            throw SensorError(device: id, reason: "not a recording: \(error)")
        } catch {
            throw SensorError(device: id, reason: "\(error)")
        }
        guard rows.count > 1 else { throw SensorError(device: id, reason: "\(file) holds fewer than two samples") }
        recordedRate = 1 / (rows.medianInterval ?? 0.01)
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
            throw SensorError(device: info.id, reason: "the recording ended after \(readings.count) samples")
        }
        let time = start + offsets[index]
        clock.sleep(until: time)
        return RawSample(
            time: time, acceleration: readings[index].rawAcceleration,
            rotationRate: readings[index].rawRotationRate)
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
