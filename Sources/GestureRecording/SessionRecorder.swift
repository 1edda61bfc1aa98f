import Foundation
import GestureCore
import GestureMotion
import GestureSensors
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

    public var rowCount: Int { sessions.map(\.sampleCount).reduce(0, +) }
}

/// Runs a recording: samples the sensor on its own thread, drives the session protocol with the
/// samples' times, speaks the prompts, labels and fuses each sample, appends the rows to the
/// user's file and registers each take in the catalog. Every take is in the catalog from its first
/// sample on, as incomplete until it ends, so that nothing is lost if the process dies.
public final class SessionRecorder: Sendable {
    public let plan: SessionPlan
    public let sensor: any MotionSensor
    /// The rate asked for, and the one the device was set to.
    public let requestedRate: Double
    public let rate: Double
    public let folder: RecordingsFolder
    public let file: FilePath
    private let clock: any SamplingClock
    private let catalog: Catalog
    private let appender: RecordingAppender
    private let lock: UserLock
    private let sampler: Mutex<Sampler?> = Mutex(nil)
    private let interruption: Mutex<String?> = Mutex(nil)

    /// Checks everything that can be checked before sampling starts, takes the user's lock and
    /// opens their file; any error here means nothing was recorded or changed.
    public init(
        plan: SessionPlan, sensor: any MotionSensor, clock: any SamplingClock, rate: Double,
        folder: RecordingsFolder
    ) throws(StoreError) {
        self.plan = plan
        self.sensor = sensor
        self.clock = clock
        self.folder = folder
        requestedRate = rate
        do {
            try sensor.validate(rate: rate)
            self.rate = try sensor.start(rate: rate)
        } catch {
            throw StoreError(error.description)
        }
        lock = try UserLock(user: plan.user, in: folder, wait: false)
        catalog = try Catalog(path: folder.catalogPath.string)
        file = folder.recordingFile(for: plan.user)
        appender = try RecordingAppender(path: file)
    }

    /// Whether the user's file held sessions before this recording.
    public var isAppending: Bool { appender.hadRows }

    /// Ends the recording after the sample being taken; the open take is saved as incomplete.
    public func interrupt(reason: String) {
        interruption.withLock { $0 = $0 ?? reason }
        sampler.withLock { $0?.stop() }
    }

    public func run(speech: Speech, startDate: Date = Date()) async -> RecordingOutcome {
        let start = clock.now()
        let context = TakeContext(recorder: self, start: start, startDate: startDate)
        if let performer = sensor as? any GesturePerformer {
            for take in 1...plan.takes { performer.perform(context.performance(take: take)) }
        }
        let sampler = Sampler(sensor: sensor, clock: clock, rate: rate)
        self.sampler.withLock { $0 = sampler }
        if interruption.withLock({ $0 }) != nil { sampler.stop() }

        var schedule = SessionSchedule(plan: plan)
        var filter = AttitudeFilter()
        var open: OpenTake?
        var closed: [SessionRecord] = []
        var lost = 0
        var failure: String?
        do {
            for try await reading in sampler.samples(from: start, duration: plan.duration) {
                let sample = reading.sample
                let time = sample.time - start
                schedule.prompts(through: time).forEach(speech.say)
                let motion = filter.update(sample)
                guard let (take, label) = schedule.position(at: time) else { continue }
                if open?.take != take {
                    if let finished = open { closed.append(try finish(finished, context: context)) }
                    open = try begin(take: take, context: context)
                }
                lost += reading.lostBefore
                let sessionTime = ((time - plan.sessionStart(take: take)) * 1e9).rounded() / 1e9
                open!.add(sample, label: label, motion: motion, sessionTime: sessionTime)
                if open!.pending.count >= max(1, Int(rate)) { try open!.flush(to: appender) }
            }
        } catch {
            failure = "\(error)"
            sampler.stop()
        }
        let stopped = interruption.withLock { $0 } ?? failure
        if let last = open {
            let record = try? finish(last, context: context, incompleteBecause: stopped)
            closed.append(record ?? last.record)
        }
        if stopped == nil { schedule.prompts(through: .infinity).forEach(speech.say) }
        return RecordingOutcome(sessions: closed, file: file, interruption: stopped, lostReadings: lost)
    }

    private func begin(take: Int, context: TakeContext) throws(StoreError) -> OpenTake {
        let record = SessionRecord(
            id: context.sessionID(take: take), user: plan.user, gesture: plan.gesture,
            take: take, start: context.wallClock(plan.sessionStart(take: take)), end: "", device: sensor.info.id,
            requestedRate: requestedRate, deviceRate: rate, achievedRate: 0, jitterMs: 0, sampleCount: 0,
            file: folder.relative(file), status: .incomplete, reason: "recording")
        try catalog.insert(record)
        return OpenTake(record: record)
    }

    /// Saves a take's last rows and its timing; a take cut short is saved as incomplete.
    private func finish(
        _ take: OpenTake, context: TakeContext, incompleteBecause reason: String? = nil
    ) throws(StoreError) -> SessionRecord {
        var take = take
        var reason = reason
        do {
            try take.flush(to: appender)
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
        try catalog.update(record)
        return record
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

    func performance(take: Int) -> Performance {
        let plan = recorder.plan
        return Performance(
            user: plan.user, gesture: plan.gesture, take: take,
            sessionStart: start + plan.sessionStart(take: take), sessionEnd: start + plan.sessionEnd(take: take),
            go: start + plan.go(take: take), stop: start + plan.stop(take: take))
    }
}

/// A take being recorded: rows not yet written, and the times of all its samples.
private struct OpenTake {
    var record: SessionRecord
    var pending: [RecordingRow] = []
    var times: [Double] = []
    var written = 0

    var take: Int { record.take }

    mutating func add(_ sample: RawSample, label: ActivityLabel, motion: DeviceMotion, sessionTime: Double) {
        times.append(sample.time)
        pending.append(
            RecordingRow(
                session: record.id, activity: label, timestamp: sessionTime, motion: motion,
                rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate))
    }

    mutating func flush(to appender: RecordingAppender) throws(StoreError) {
        try appender.append(pending)
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }
}
