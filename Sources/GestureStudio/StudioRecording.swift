import Foundation
import GestureArchive
import GestureCore
import GestureRecording
import GestureSensors
import GestureSpeech
import GestureStore
import HTTPTypes
import Synchronization

/// Recording from the studio's page, one recording at a time: `gesture record`'s plan and session
/// recorder, so the same sessions, catalog rows and files; the prompts shown on the page and on the
/// phone's page and spoken on the laptop; each take kept, or discarded as `gesture discard` does.
/// A take discarded while the recording runs is discarded when it ends, the user's file being the
/// recorder's until then.
final class StudioRecording: Sendable {
    let devices: StudioDevices
    let folder: RecordingsFolder
    let voice: Speech.Voice
    private let run = Mutex(Run())

    init(devices: StudioDevices, folder: RecordingsFolder, voice: Speech.Voice) {
        self.devices = devices
        self.folder = folder
        self.voice = voice
    }

    /// The current or last recording, and what stops it.
    private struct Run {
        var progress = RecordingProgress()
        /// Waits for the phone's page, then records.
        var task: Task<Void, Never>?
        var recorder: SessionRecorder?
        var stopped = false
    }

    static let stopReason = "stopped in the studio"

    var progress: RecordingProgress { run.withLock { $0.progress } }

    /// Starts recording as `request` asks, unless a recording is under way. A device other than
    /// the phone is opened, and its recorder made, before this returns; the phone's once its page streams.
    func start(_ request: RecordingRequest, phone: PhoneLink) async throws(StudioRefusal) -> RecordingProgress {
        let plan: SessionPlan
        do {
            plan = try request.plan(names: RecordedNames(folder: folder))
        } catch {
            throw StudioRefusal(.badRequest, error.description)
        }
        let device = request.device ?? PhoneSensor.id
        let earlier = try reserve(RecordingProgress(plan, device: device))
        var recorder: SessionRecorder?
        if device != PhoneSensor.id {
            do {
                recorder = try await self.recorder(plan, device: device, phone: phone)
            } catch {
                run.withLock { $0.progress = earlier }
                throw error
            }
        }
        return run.withLock { run in
            run.progress.state = recorder == nil ? .waiting : .recording
            run.recorder = recorder
            let task = Task { await self.record(plan, device: device, phone: phone) }
            run.task = task
            // Stopped while it was being prepared.
            if run.stopped {
                recorder?.interrupt(reason: Self.stopReason)
                task.cancel()
            }
            return run.progress
        }
    }

    /// Stops the recording under way: the takes that ended are kept, the open one saved as
    /// incomplete, as Ctrl-C does in `gesture record`.
    func stop() throws(StudioRefusal) -> RecordingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard run.progress.isRunning else { throw StudioRefusal(.conflict, "no recording is running") }
            run.stopped = true
            if let recorder = run.recorder { recorder.interrupt(reason: Self.stopReason) } else { run.task?.cancel() }
            return run.progress
        }
    }

    /// Keeps or discards a take of the recording: now once the recording has ended, else when it ends.
    func decide(_ decision: TakeDecision) throws(StudioRefusal) -> RecordingProgress {
        let running = try run.withLock { run throws(StudioRefusal) in
            guard let index = run.progress.takes.firstIndex(where: { $0.record.id.rawValue == decision.session })
            else {
                throw StudioRefusal(
                    .badRequest, "\(decision.session) is not a take of the last recording, or has not ended")
            }
            run.progress.takes[index].discarding = !decision.keep
            // Without its recorder, the recording has let go of the user's file.
            return run.recorder != nil
        }
        if !running { try applyDecisions() }
        return progress
    }

    /// Marks a recording as started, so that a second start is refused while this one is prepared.
    private func reserve(_ starting: RecordingProgress) throws(StudioRefusal) -> RecordingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard !run.progress.isRunning else {
                let progress = run.progress
                throw StudioRefusal(
                    .conflict,
                    "\(progress.user) is recording \(progress.gesture) (take \(progress.takes.count + 1) of "
                        + "\(progress.plannedTakes)): wait for it, or stop it")
            }
            let earlier = run.progress
            run = Run(progress: starting)
            return earlier
        }
    }

    /// The device opened and its recorder made, with the user's lock taken and their file open.
    private func recorder(
        _ plan: SessionPlan, device: String, phone: PhoneLink
    ) async throws(StudioRefusal) -> SessionRecorder {
        let sensor: any MotionSensor
        do {
            sensor = try await devices.open(device, phone: phone, holder: plan.user)
        } catch {
            throw StudioRefusal(.badRequest, error.description)
        }
        do {
            return try SessionRecorder(
                plan: plan, sensor: sensor, clock: MonotonicClock(), rate: StudioDevices.rate(of: sensor),
                folder: folder)
        } catch {
            throw StudioRefusal(.conflict, error.description)
        }
    }

    /// Records, applies the decisions made meanwhile, then says it ended, so that a page that stops
    /// asking once it ended sees each take as it is; a decision made after is applied at once.
    private func record(_ plan: SessionPlan, device: String, phone: PhoneLink) async {
        let outcome: Result<RecordingOutcome, any Error>
        do {
            outcome = .success(try await self.outcome(of: plan, device: device, phone: phone))
        } catch {
            outcome = .failure(error)
        }
        let applied = Result { () throws(StudioRefusal) in try applyDecisions() }
        run.withLock { run in
            switch outcome {
            case .success(let outcome): run.progress.end(outcome)
            case .failure(let error):
                run.progress.end(
                    failure: run.stopped
                        ? "stopped before the phone's page streamed" : (error as? StudioRefusal)?.message ?? "\(error)",
                    stopped: run.stopped)
            }
            if case .failure(let refusal) = applied { run.progress.error = refusal.message }
        }
    }

    /// Records, and lets go of the recorder, and with it the user's lock, when it returns.
    private func outcome(of plan: SessionPlan, device: String, phone: PhoneLink) async throws -> RecordingOutcome {
        let recorder: SessionRecorder
        if let opened = run.withLock({ $0.recorder }) {
            recorder = opened
        } else {
            guard let opened = try await waitForPhone(plan, phone: phone) else { throw CancellationError() }
            recorder = opened
        }
        defer { run.withLock { $0.recorder = nil } }
        let showing = device == PhoneSensor.id ? phone : nil
        let speech = Speech(
            voice: voice,
            print: { prompt in
                self.run.withLock { $0.progress.prompts.append(prompt) }
                showing?.show(prompt: prompt)
            },
            warn: { warning in self.run.withLock { $0.progress.warnings.append(warning) } })
        let outcome = await recorder.run(
            speech: speech, ended: { record in self.run.withLock { $0.progress.takes.append(.init(record: record)) } })
        // The studio outlives the recording: the phone's link stops keeping readings for it.
        recorder.sensor.stop()
        await speech.finish()
        showing?.show(prompt: outcome.interruption == nil ? "Done" : "Stopped")
        return outcome
    }

    /// The phone's recorder once its page streams; nil if stopped first.
    private func waitForPhone(_ plan: SessionPlan, phone: PhoneLink) async throws(StudioRefusal) -> SessionRecorder? {
        let recorder = try await self.recorder(plan, device: PhoneSensor.id, phone: phone)
        return run.withLock { run in
            guard !run.stopped else { return nil }
            run.progress.state = .recording
            run.recorder = recorder
            return recorder
        }
    }

    /// Discards the takes marked for it, and restores those kept again, through the archive.
    private func applyDecisions() throws(StudioRefusal) {
        let takes = run.withLock { $0.progress.takes }
        let discard = takes.filter { $0.discarding && $0.record.status != .discarded }.map(\.record.id)
        let restore = takes.filter { !$0.discarding && $0.record.status == .discarded }.map(\.record.id)
        guard !discard.isEmpty || !restore.isEmpty else { return }
        var changed: [SessionRecord] = []
        do {
            let archive = try Archive(folder: folder, waiting: .never)
            if !discard.isEmpty { changed += try archive.discard(discard, reason: "discarded after recording") }
            if !restore.isEmpty { changed += try archive.restore(restore) }
        } catch {
            throw StudioRefusal(.conflict, error.description)
        }
        run.withLock { run in
            for record in changed {
                guard let index = run.progress.takes.firstIndex(where: { $0.record.id == record.id }) else { continue }
                run.progress.takes[index].record = record
            }
        }
    }
}

/// What the page sends to start a recording: `gesture record`'s device, user, gesture, takes, and
/// take and rest lengths; those left out take `gesture record`'s defaults.
struct RecordingRequest: Decodable {
    var device: String?
    var user: String?
    var gesture: String?
    var takes: Int?
    var take: Double?
    var rest: Double?

    /// The plan, with a user or gesture that differs from one `names` holds only in case spelled as
    /// held, as `gesture record` does.
    func plan(names: RecordedNames) throws(StudioError) -> SessionPlan {
        guard let user, !user.isEmpty else { throw StudioError("name the user who records") }
        guard let gesture, !gesture.isEmpty else { throw StudioError("name the gesture to record") }
        do {
            return try SessionPlan(
                user: try UserID(names.users.spelling(of: user).recorded(user)),
                gesture: try ActivityLabel(names.gestures.spelling(of: gesture).recorded(gesture)),
                takes: takes ?? 5, take: take ?? 4, rest: rest ?? 3)
        } catch {
            throw StudioError("\(error)")
        }
    }
}

/// The users and gestures the recordings hold, with their sessions, and a warning for the user and
/// the gesture typed in the Record view when each is a name held in other letter case, or close to one.
struct NameCheck: Encodable {
    var users: [KnownNames.Name]
    var gestures: [KnownNames.Name]
    var userWarning: String?
    var gestureWarning: String?

    init(_ names: RecordedNames, user: String?, gesture: String?) {
        users = names.users.names
        gestures = names.gestures.names
        userWarning = user.flatMap { names.users.spelling(of: $0).warning(about: $0, what: "user") }
        gestureWarning = gesture.flatMap { names.gestures.spelling(of: $0).warning(about: $0, what: "gesture") }
    }
}

/// A take kept (`keep`), or discarded.
struct TakeDecision: Decodable {
    var session: String
    var keep: Bool
}

/// What the page reads of a recording: its state, the prompts said so far, the takes that ended.
struct RecordingProgress: Encodable, Sendable {
    /// `waiting`: for the phone's page to stream.
    enum State: String, Encodable, Sendable {
        case idle, waiting, recording, finished, stopped, failed
    }

    struct Take: Encodable, Sendable {
        var record: SessionRecord
        /// Discarded, or to be once the recording ends.
        var discarding = false
    }

    var state = State.idle
    var device = ""
    var user = ""
    var gesture = ""
    var plannedTakes = 0
    var prompts: [String] = []
    var takes: [Take] = []
    /// Why the recording stopped or failed, or a decision could not be applied.
    var error: String?
    /// Why the prompts are not spoken, if they are not.
    var warnings: [String] = []

    init() {}

    init(_ plan: SessionPlan, device: String) {
        state = .waiting
        self.device = device
        user = plan.user.rawValue
        gesture = plan.gesture.rawValue
        plannedTakes = plan.takes
    }

    var isRunning: Bool { state == .waiting || state == .recording }

    mutating func end(_ outcome: RecordingOutcome) {
        state = outcome.interruption == nil ? .finished : .stopped
        error = outcome.interruption
        if let catalogError = outcome.catalogError {
            error = "\(catalogError); `gesture check --repair` counts the rows of the takes the catalog lacks"
        }
    }

    mutating func end(failure: String, stopped: Bool) {
        state = stopped ? .stopped : .failed
        error = failure
    }
}
