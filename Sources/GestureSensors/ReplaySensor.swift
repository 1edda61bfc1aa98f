import FoundationEssentials
import GestureCore
import Synchronization

/// Plays a recording's raw readings back as a sensor, at their recorded pace on the clock it is
/// given: with the monotonic clock in real time, with a manual clock as fast as it can.
///
/// Sessions follow one another in file order, each one sample period after the last one ended,
/// and the gaps within a session are kept. The file is read a block at a time, once to check it
/// and find its rate (holding a sample interval a row), then as it plays.
public final class ReplaySensor: MotionSensor {
    public let info: SensorInfo
    public var pacing: SensorPacing { .deviceTimed }
    /// The rate the recording was made at, from its median sample interval.
    public let recordedRate: Double

    private let file: String
    private let clock: any SamplingClock
    private let count: Int
    /// When the first reading was asked for, which reading comes next, and the rows from it on.
    private let state: Mutex<Playback>

    private struct Playback: ~Copyable {
        var start: Double?
        var next = 0
        var rows: RecordingCSV.RowReader
        var offsets: ReplayOffsets
    }

    /// Each reading's time since the first, as it is played, with its recorded label; the file is
    /// read again for it.
    public var timeline: [(time: Double, label: ActivityLabel)] {
        get throws(SensorError) {
            var rows = try Self.rows(of: file, device: info.id)
            var offsets = ReplayOffsets(period: 1 / recordedRate)
            var timeline: [(time: Double, label: ActivityLabel)] = []
            timeline.reserveCapacity(count)
            while let row = try Self.next(of: &rows, device: info.id) {
                timeline.append((offsets.offset(of: row), row.activity))
            }
            return timeline
        }
    }

    public init(file: String, clock: any SamplingClock) throws(SensorError) {
        let id = "replay:\(file)"
        var rows = try Self.rows(of: file, device: id)
        var check = TimesCheck(device: id)
        while let row = try Self.next(of: &rows, device: id) { try check.add(row) }
        guard check.count > 1 else { throw SensorError(device: id, reason: "\(file) holds fewer than two samples") }
        // Rounded to a millionth of a hertz, so that asking for the recorded rate is not refused
        // over the last bit of the median interval.
        recordedRate = (1e6 / (check.intervals.median ?? 0.01)).rounded() / 1e6
        count = check.count
        self.file = file
        self.clock = clock
        state = Mutex(
            Playback(rows: try Self.rows(of: file, device: id), offsets: ReplayOffsets(period: 1 / recordedRate)))
        info = SensorInfo(id: id, name: "replay of \(file)", maximumRate: recordedRate)
    }

    /// Replays at the recorded rate, whatever rate was asked for.
    public func start(rate: Double) throws(SensorError) -> Double {
        try state.withLock { state throws(SensorError) in
            state = Playback(
                rows: try Self.rows(of: file, device: info.id), offsets: ReplayOffsets(period: 1 / recordedRate))
        }
        return recordedRate
    }

    public func stop() {}

    /// Whether every reading has been played.
    public var isFinished: Bool { state.withLock { $0.next >= count } }

    public func read(now: Double) throws(SensorError) -> RawSample? {
        let (time, row) = try state.withLock { state throws(SensorError) in
            guard let row = try Self.next(of: &state.rows, device: info.id) else {
                throw SensorError(device: info.id, reason: "the recording ended after \(count.counting("sample"))")
            }
            let start = state.start ?? now
            state.start = start
            state.next += 1
            return (start + state.offsets.offset(of: row), row)
        }
        clock.sleep(until: time)
        return RawSample(time: time, acceleration: row.rawAcceleration, rotationRate: row.rawRotationRate)
    }

    /// The longest pause a replay plays: a longer one is a broken timestamp, not a recording.
    public static let longestPause = 60.0

    private static func rows(of file: String, device: String) throws(SensorError) -> RecordingCSV.RowReader {
        do { return try RecordingCSV.RowReader(path: file) } catch {
            throw SensorError(device: device, reason: "\(error)")
        }
    }

    private static func next(of rows: inout RecordingCSV.RowReader, device: String) throws(SensorError) -> RecordingRow?
    {
        do { return try rows.next() } catch .malformed(let error) {
            throw SensorError(device: device, reason: "not a recording: \(error)")
        } catch {
            throw SensorError(device: device, reason: "\(error)")
        }
    }
}

/// Within a session, each timestamp must come after the one before it, by no more than
/// `ReplaySensor.longestPause`; checked a row at a time, keeping the intervals for the median.
private struct TimesCheck {
    let device: String
    var count = 0
    var intervals: [Double] = []
    private var previous: RecordingRow?

    init(device: String) { self.device = device }

    mutating func add(_ row: RecordingRow) throws(SensorError) {
        count += 1
        defer { previous = row }
        guard let previous, previous.session == row.session else { return }
        let step = row.timestamp - previous.timestamp
        guard step > 0, step <= ReplaySensor.longestPause else {
            throw SensorError(
                device: device,
                reason:
                    "row \(count) (session \(row.session)): timestamp \(row.timestamp) is "
                    + (step > 0 ? "more than \(Int(ReplaySensor.longestPause)) s after" : "not after")
                    + " the one before it")
        }
        intervals.append(step)
    }
}

/// Each row's time since the first, sessions laid end to end, a row at a time in file order.
private struct ReplayOffsets {
    let period: Double
    private var first: Double?
    private var sessionStart = 0.0
    private var previous: (session: SessionID, offset: Double)?

    init(period: Double) { self.period = period }

    mutating func offset(of row: RecordingRow) -> Double {
        let first = self.first ?? row.timestamp
        self.first = first
        if let previous, row.session != previous.session {
            sessionStart = previous.offset + period - row.timestamp
        }
        let offset = sessionStart + row.timestamp - first
        previous = (row.session, offset)
        return offset
    }
}
