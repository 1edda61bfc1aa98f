import Foundation
import GestureCore
import GestureMotion
import GestureSensors
import GestureSpeech
import GestureStore
import Synchronization

import struct SystemPackage.FilePath

/// How a recording ended.
public struct RecordingOutcome: Sendable {
    public var sessions: [SessionRecord]
    public var file: FilePath
    /// Why the recording ended before its last take, if it did.
    public var interruption: String?
    /// The device's readings lost during the takes (not read in time, or delivered too late).
    public var lostReadings = 0
    /// The companion's, during the recording.
    public var companionLostReadings = 0
    /// Takes whose rows are in the file but whose last state the catalog could not save, and why.
    public var unsaved: [SessionRecord] = []
    public var catalogError: StoreError?

    public var rowCount: Int { sessions.map(\.sampleCount).reduce(0, +) }
}

/// Runs a recording: samples the sensor on its own thread, drives the session protocol with the
/// samples' times, speaks the prompts, labels and fuses each sample, appends the rows to the
/// user's file and registers each take in the catalog. Every take is in the catalog from its first
/// sample on, as incomplete until it ends; the rows are in the file before the catalog counts them.
/// The catalog is written on a queue of its own (`CatalogWriter`), so that a slow or failing
/// catalog can neither hold up the rows nor write them twice; `gesture check` can always count
/// them again from the file. With a `Companion`, a second device read on a thread of its own, each
/// row waits for the companion's reading after its time, and carries the one at its time.
public final class SessionRecorder: Sendable {
    public let plan: SessionPlan
    public let sensor: any MotionSensor
    public let companion: Companion?
    /// The rate the companion was set to.
    private let companionRate: Double
    /// The rate asked for, and the one the device was set to.
    public let requestedRate: Double
    public let rate: Double
    public let folder: RecordingsFolder
    public let file: FilePath
    private let clock: any SamplingClock
    private let catalog: Catalog
    private let writer: CatalogWriter
    private let appender: RecordingAppender
    private let lock: UserLock
    private let sampler: Mutex<Sampler?> = Mutex(nil)
    private let interruption: Mutex<String?> = Mutex(nil)

    /// Checks everything that can be checked before sampling starts, takes the user's lock and
    /// opens their file; any error here means nothing was recorded or changed.
    public init(
        plan: SessionPlan, sensor: any MotionSensor, clock: any SamplingClock, rate: Double,
        folder: RecordingsFolder, companion: Companion? = nil, waiting: (@Sendable (String) -> Void)? = nil
    ) throws(StoreError) {
        self.plan = plan
        self.sensor = sensor
        self.clock = clock
        self.folder = folder
        requestedRate = rate
        do {
            try sensor.validate(rate: rate)
            self.rate = try sensor.start(rate: rate)
            companionRate = try companion?.start(recordingAt: self.rate) ?? 0
        } catch {
            throw StoreError(error.description)
        }
        self.companion = companion
        lock = try UserLock(user: plan.user, in: folder, for: "recording", wait: .never)
        catalog = try Catalog(path: folder.catalogPath.string, waiting: waiting)
        writer = CatalogWriter(catalog: catalog)
        file = folder.recordingFile(for: plan.user, companion: companion?.prefix)
        appender = try RecordingAppender(path: file, companion: companion?.prefix)
    }

    /// Whether the user's file held sessions before this recording.
    public var isAppending: Bool { appender.hadRows }

    /// Ends the recording after the sample being taken; the open take is saved as incomplete.
    public func interrupt(reason: String) {
        interruption.withLock { $0 = $0 ?? reason }
        sampler.withLock { $0?.stop() }
    }

    /// Records the plan; `observe` sees every reading, in takes or between them, as it arrives,
    /// and `ended` each take's record as it ends (its catalog row may still be on its way).
    public func run(
        speech: Speech, startDate: Date = Date(), observe: (SensorReading) -> Void = { _ in },
        ended: @escaping (SessionRecord) -> Void = { _ in }
    ) async -> RecordingOutcome {
        let start = clock.now()
        let context: TakeContext
        do {
            context = try claimSessionIDs(start: start, date: startDate)
        } catch {
            return RecordingOutcome(sessions: [], file: file, interruption: error.description)
        }
        let performances =
            plan.prompted ? (1...plan.takes).map(context.performance(take:)) : context.scriptedPerformances()
        for performer in [sensor, companion?.sensor].compactMap({ $0 as? any GesturePerformer }) {
            performances.forEach(performer.perform)
        }
        let sampler = Sampler(sensor: sensor, clock: clock, rate: rate)
        self.sampler.withLock { $0 = sampler }
        if interruption.withLock({ $0 }) != nil { sampler.stop() }
        let companionSampler = companion.map { Sampler(sensor: $0.sensor, clock: $0.clock, rate: companionRate) }
        defer { companionSampler?.stop() }

        var takes = TakeLog(context: context, writer: writer, ended: ended)
        var schedule = SessionSchedule(plan: plan)
        var failure: String?
        var track = companionSampler.map { CompanionTrack($0.samples(from: start, duration: .infinity)) }
        do {
            try await record(
                from: sampler, with: &track, speech: speech, schedule: &schedule, into: &takes, observe: observe)
        } catch {
            failure = "\(error)"
            sampler.stop()
        }
        // Without prompts, being stopped is how a recording ends.
        let stopped = failure ?? (plan.prompted ? interruption.withLock { $0 } : nil)
        takes.close(appender: appender, rate: rate, incompleteBecause: stopped)
        if takes.closed.isEmpty { try? catalog.withdraw(context.sessionID(take: 1)) }
        if stopped == nil { schedule.prompts(through: .infinity).forEach(speech.say) }
        let (unsaved, catalogError) = writer.drain()
        return RecordingOutcome(
            sessions: takes.closed, file: file, interruption: stopped, lostReadings: takes.lost,
            companionLostReadings: track?.lost ?? 0, unsaved: unsaved, catalogError: catalogError)
    }

    private func record(
        from sampler: Sampler, with track: inout CompanionTrack?, speech: Speech, schedule: inout SessionSchedule,
        into takes: inout TakeLog, observe: (SensorReading) -> Void
    ) async throws {
        var filter = AttitudeFilter()
        for try await reading in sampler.samples(from: takes.context.start, duration: plan.duration) {
            observe(reading)
            let sample = reading.sample
            let time = sample.time - takes.context.start
            schedule.prompts(through: time).forEach(speech.say)
            let motion = filter.update(sample)
            let companion = try await track?.reading(at: sample.time)
            guard let (take, label) = schedule.position(at: time) else { continue }
            if takes.open?.take != take { try takes.begin(take: take, appender: appender, rate: rate) }
            takes.lost += reading.lostBefore
            let sessionTime = ((time - plan.sessionStart(take: take)) * 1e9).rounded() / 1e9
            takes.open!.add(sample, label: label, motion: motion, companion: companion, sessionTime: sessionTime)
            if takes.open!.rows.count - takes.open!.written >= max(1, Int(rate)) { try takes.open!.flush(to: appender) }
        }
    }

    /// Enters the first take in the catalog before anything is recorded, so that two recordings
    /// started in the same millisecond get different IDs: the later one's start moves on by 1 ms.
    private func claimSessionIDs(start: Double, date: Date) throws(StoreError) -> TakeContext {
        var date = date
        for _ in 0..<1000 {
            let context = TakeContext(recorder: self, start: start, startDate: date)
            let first = context.openRecord(take: 1)
            if try catalog.insertUnlessTaken(first) { return context }
            date = date.addingTimeInterval(0.001)
        }
        throw StoreError("catalog: no free session ID near \(WallClock.iso8601(date))")
    }
}

/// The takes of one recording: the one being recorded, and those that ended.
private struct TakeLog {
    let context: TakeContext
    let writer: CatalogWriter
    let ended: (SessionRecord) -> Void
    var open: OpenTake?
    var closed: [SessionRecord] = []
    var lost = 0

    /// Ends the open take, if any, and opens the next; the first is in the catalog already.
    /// A take whose rows could not all be written ends the recording.
    mutating func begin(take: Int, appender: RecordingAppender, rate: Double) throws(StoreError) {
        close(appender: appender, rate: rate, incompleteBecause: nil)
        if let failed = closed.last, failed.status == .incomplete { throw StoreError(failed.reason ?? "") }
        let record = context.openRecord(take: take)
        if take > 1 { writer.begin(record) }
        open = OpenTake(record: record)
    }

    /// Writes the open take's last rows and saves it with its timing, as incomplete if `reason`
    /// says why or its rows could not be written.
    mutating func close(appender: RecordingAppender, rate: Double, incompleteBecause reason: String?) {
        guard var take = open else { return }
        open = nil
        var reason = reason
        do {
            try take.finish(to: appender)
        } catch {
            reason = error.description
        }
        var record = take.record
        let timing = TimingStats(times: Array(take.times.prefix(take.written)), nominalRate: rate)
        record.end = context.wallClock((take.times.last ?? context.start) - context.start)
        record.achievedRate = timing.achievedRate
        record.jitterMs = timing.jitter * 1000
        record.sampleCount = take.written
        record.status = reason == nil ? .kept : .incomplete
        record.reason = reason
        writer.finish(record)
        closed.append(record)
        ended(record)
    }
}

/// The times that stay fixed for one recording.
private struct TakeContext {
    let recorder: SessionRecorder
    /// The sensor clock's reading when sampling started.
    let start: Double
    let startDate: Date

    func sessionID(take: Int) -> SessionID {
        SessionID(start: WallClock.iso8601(startDate), take: take)
    }

    func wallClock(_ secondsSinceStart: Double) -> String {
        WallClock.iso8601(startDate.addingTimeInterval(secondsSinceStart))
    }

    /// A take's catalog record as it is while it is recorded.
    func openRecord(take: Int) -> SessionRecord {
        let plan = recorder.plan
        return SessionRecord(
            id: sessionID(take: take), user: plan.user, gesture: plan.gesture, take: take,
            start: wallClock(plan.sessionStart(take: take)), end: nil, device: recorder.sensor.info.id,
            requestedRate: recorder.requestedRate, deviceRate: recorder.rate, achievedRate: 0, jitterMs: 0,
            sampleCount: 0, file: recorder.folder.relative(recorder.file), status: .incomplete,
            reason: SessionRecord.recordingReason,
            promptFrom: plan.prompted ? plan.go(take: take) - plan.sessionStart(take: take) : nil,
            promptTo: plan.prompted ? plan.stop(take: take) - plan.sessionStart(take: take) : nil)
    }

    /// The simulated person's gestures in a recording without prompts, one every few seconds.
    func scriptedPerformances() -> [Performance] {
        let plan = recorder.plan
        return plan.script.enumerated().map { index, gesture in
            let go = start + plan.intro + SessionPlan.scriptInterval * Double(index) + 1
            return Performance(
                user: plan.user, gesture: gesture, take: index + 1, sessionStart: go - 1,
                sessionEnd: go - 1 + SessionPlan.scriptInterval, go: go, stop: go + 2.5)
        }
    }

    func performance(take: Int) -> Performance {
        let plan = recorder.plan
        return Performance(
            user: plan.user, gesture: plan.gesture, take: take,
            sessionStart: start + plan.sessionStart(take: take), sessionEnd: start + plan.sessionEnd(take: take),
            go: start + plan.go(take: take), stop: start + plan.stop(take: take))
    }
}

/// A take being recorded: its rows, how many are written, and the times of all its samples. Rows
/// from `lead` seconds before the prompt's go on are held until the take ends, when their labels
/// are made to follow the motion (`MotionAlignment`); the rows before are rest, and written as they
/// come. A row is held `longestHold` seconds at most: a long take's start is decided from the
/// motion so far, and its rows written as it goes. A take without a prompt holds nothing and keeps
/// its labels.
private struct OpenTake {
    var record: SessionRecord
    var rows: [RecordingRow] = []
    /// The companion's reading on each row, if one is recorded.
    var companions: [CompanionReading] = []
    var times: [Double] = []
    var written = 0
    /// Where the motion started, once rows after it had to be written before the take ended.
    var start: Double?

    static let lead = 1.0
    static let longestHold = 10.0

    var take: Int { record.take }
    private var prompt: ClosedRange<Double>? { record.promptFrom.flatMap { from in record.promptTo.map { from...$0 } } }

    mutating func add(
        _ sample: RawSample, label: ActivityLabel, motion: DeviceMotion, companion: CompanionReading?,
        sessionTime: Double
    ) {
        times.append(sample.time)
        if let companion { companions.append(companion) }
        rows.append(
            RecordingRow(
                session: record.id, activity: label, timestamp: sessionTime, motion: motion,
                rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate))
    }

    /// Writes the rows that are not held.
    mutating func flush(to appender: RecordingAppender) throws(StoreError) {
        guard let prompt else { return try write(upTo: rows.endIndex, to: appender) }
        var end = rows[written...].firstIndex { $0.timestamp >= prompt.lowerBound - Self.lead } ?? rows.endIndex
        if let last = rows.last, end < rows.count, last.timestamp - rows[end].timestamp > Self.longestHold {
            let start = self.start ?? startSoFar(prompt)
            self.start = start
            end = rows[end...].firstIndex { $0.timestamp > last.timestamp - Self.longestHold / 2 } ?? rows.endIndex
            for index in written..<end where rows[index].timestamp <= prompt.upperBound {
                rows[index].activity = rows[index].timestamp >= start ? record.gesture : .rest
            }
        }
        try write(upTo: end, to: appender)
    }

    /// Where the motion inside the prompt so far started; go if nothing moved.
    private func startSoFar(_ prompt: ClosedRange<Double>) -> Double {
        let now = max(prompt.lowerBound, min(prompt.upperBound, rows.last?.timestamp ?? 0))
        guard case .motion(let found) = MotionAlignment().align(rows, prompt: prompt.lowerBound...now) else {
            return prompt.lowerBound
        }
        return found.lowerBound
    }

    /// Labels the held rows as the motion says, writes every row left and notes the labels in the record.
    mutating func finish(to appender: RecordingAppender) throws(StoreError) {
        guard let prompt else {
            record.labels = [LabelSpan](runsOf: rows)
            return try write(upTo: rows.endIndex, to: appender)
        }
        let alignment = MotionAlignment().align(rows, prompt: prompt)
        if case .motion(let found) = alignment, written < rows.count {
            let span = LabelSpan(
                from: max(start ?? found.lowerBound, rows[written].timestamp), to: found.upperBound,
                label: record.gesture)
            for index in written..<rows.count { rows[index].activity = [span].label(at: rows[index].timestamp) }
        }
        record.alignment =
            switch alignment {
            case .motion: .aligned
            case .noMotion: .noMotion
            case .noRest: .noRest
            }
        record.labels = [LabelSpan](runsOf: rows)
        try write(upTo: rows.endIndex, to: appender)
    }

    private mutating func write(upTo end: Int, to appender: RecordingAppender) throws(StoreError) {
        guard end > written else { return }
        if companions.isEmpty {
            try appender.append(rows[written..<end])
        } else {
            try appender.append(rows[written..<end], companions: companions[written..<end])
        }
        written = end
    }
}
