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
/// A take discarded while the recording runs is discarded when it ends, the users' files being the
/// recorders' until then.
///
/// A group recording records several phones at once, each as its own user with a recorder of its
/// own (its takes timed by its own readings, as `gesture record` times them); each phone shows its
/// own prompts, and the laptop shows and says those of the first phone that has not dropped out,
/// so they are said once. A phone that drops out ends its own part, as a page closed ends `gesture record`;
/// the others go on.
final class StudioRecording: Sendable {
    let devices: StudioDevices
    let folder: RecordingsFolder
    let voice: Speech.Voice
    private let run = Mutex(Run())
    /// Held while decisions are applied, so that one application sees the takes another changed
    /// and the two never contend for the users' locks.
    private let applying = Mutex(())

    init(devices: StudioDevices, folder: RecordingsFolder, voice: Speech.Voice) {
        self.devices = devices
        self.folder = folder
        self.voice = voice
    }

    /// The current or last recording, and what stops it.
    private struct Run {
        var progress = RecordingProgress() {
            didSet { progress.revision = oldValue.revision + 1 }
        }
        /// Each member's part: waits for its phone's page if it must, then records.
        var parts: [Task<Void, Never>] = []
        /// Each member's recorder while it records, and the phone that shows its prompts.
        var recorders: [SessionRecorder?] = []
        var links: [PhoneLink?] = []
        var stopped = false

        /// Ends every part: a recorder's after the sample being taken, one still waiting at once.
        func halt() {
            for (recorder, part) in zip(recorders, parts) {
                if let recorder { recorder.interrupt(reason: StudioRecording.stopReason) } else { part.cancel() }
            }
        }

        /// Whether `member` shows and says its prompts on the laptop: it is the first recording or
        /// finished, so a phone that finished keeps the lead and its last prompts are not said twice.
        func leads(_ member: Int) -> Bool {
            progress.members.firstIndex { $0.state == .recording || $0.state == .finished } == member
        }
    }

    static let stopReason = "stopped in the studio"

    var progress: RecordingProgress { run.withLock { $0.progress } }

    /// Starts recording as `request` asks, unless a recording is under way. A device other than
    /// the phone, and each phone of a group, is opened, and its recorder made, before this returns;
    /// the phone's, or a board's with the phone, once the phone's page streams.
    func start(_ request: RecordingRequest, phones: PhonePairing) async throws(StudioRefusal) -> RecordingProgress {
        let members: [RecordingMember]
        do {
            members = try request.members(names: RecordedNames(folder: folder))
        } catch {
            throw StudioRefusal(.badRequest, error.description)
        }
        let earlier = try reserve(RecordingProgress(members))
        var opened: [(recorder: SessionRecorder, link: PhoneLink?)?] = []
        do {
            for member in members { opened.append(member.waits ? nil : try await recorder(member, phones: phones)) }
        } catch {
            run.withLock { $0.progress = earlier }
            throw error
        }
        return run.withLock { run in
            run.recorders = opened.map { $0?.recorder }
            run.links = opened.map { $0?.link }
            for index in members.indices where opened[index] != nil { run.progress.members[index].state = .recording }
            run.progress.refresh()
            let laptop = laptopSpeech()
            run.parts = members.indices.map { index in
                Task { await self.record(members[index], member: index, phones: phones, laptop: laptop) }
            }
            let parts = run.parts
            Task {
                for part in parts { await part.value }
                await self.end(laptop)
            }
            // Stopped while it was being prepared.
            if run.stopped { run.halt() }
            return run.progress
        }
    }

    /// Stops the recording under way: the takes that ended are kept, the open ones saved as
    /// incomplete, as Ctrl-C does in `gesture record`.
    func stop() throws(StudioRefusal) -> RecordingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard run.progress.isRunning else { throw StudioRefusal(.conflict, "no recording is running") }
            run.stopped = true
            run.halt()
            return run.progress
        }
    }

    /// Keeps or discards a take of the recording: now once every recorder has ended, else when they have.
    func decide(_ decision: TakeDecision) throws(StudioRefusal) -> RecordingProgress {
        let running = try run.withLock { run throws(StudioRefusal) in
            guard let index = run.progress.takes.firstIndex(where: { $0.record.id.rawValue == decision.session })
            else {
                throw StudioRefusal(
                    .badRequest, "\(decision.session) is not a take of the last recording, or has not ended")
            }
            run.progress.takes[index].discarding = !decision.keep
            // Without recorders, the recording has let go of the users' files.
            return run.recorders.contains { $0 != nil }
        }
        if !running { try applyDecisions() }
        return progress
    }

    /// Marks a recording as started, so that a second start is refused while this one is prepared.
    private func reserve(_ starting: RecordingProgress) throws(StudioRefusal) -> RecordingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard !run.progress.isRunning else { throw StudioRefusal(.conflict, run.progress.busy) }
            let earlier = run.progress
            var starting = starting
            starting.revision = earlier.revision + 1
            run = Run(progress: starting)
            return earlier
        }
    }

    /// The member's device opened and its recorder made, with the user's lock taken and their file
    /// open; with the phone's link when the device is a phone.
    private func recorder(
        _ member: RecordingMember, phones: PhonePairing
    ) async throws(StudioRefusal) -> (recorder: SessionRecorder, link: PhoneLink?) {
        let sensor: any MotionSensor
        var link: PhoneLink?
        var companion: Companion?
        do {
            if let phone = try await devices.openPhone(member.device, phones: phones, waiting: member.waits) {
                (sensor, link) = phone
            } else {
                sensor = try await devices.open(member.device, phones: phones, holder: member.plan.user)
            }
            if let id = member.companion, let (phone, phoneLink) = try await devices.openPhone(id, phones: phones) {
                link = phoneLink
                companion = Companion(
                    sensor: phone, clock: MonotonicClock(), prefix: PhoneSensor.id, rate: StudioDevices.rate(of: phone))
            }
        } catch {
            throw StudioRefusal(.badRequest, error.description)
        }
        do {
            let recorder = try SessionRecorder(
                plan: member.plan, sensor: sensor, clock: MonotonicClock(), rate: StudioDevices.rate(of: sensor),
                folder: folder, companion: companion)
            return (recorder, link)
        } catch {
            throw StudioRefusal(.conflict, error.description)
        }
    }

    /// Says the prompts on the laptop, and shows them on the page; says once why it cannot speak.
    private func laptopSpeech() -> Speech {
        Speech(
            voice: voice, print: { prompt in self.run.withLock { $0.progress.prompts.append(prompt) } },
            warn: { warning in self.run.withLock { $0.progress.warnings.append(warning) } })
    }

    /// Records one member's part, and says how it ended.
    private func record(_ member: RecordingMember, member index: Int, phones: PhonePairing, laptop: Speech) async {
        let outcome: Result<RecordingOutcome, any Error>
        do {
            outcome = .success(try await self.outcome(of: member, member: index, phones: phones, laptop: laptop))
        } catch {
            outcome = .failure(error)
        }
        run.withLock { run in
            switch outcome {
            case .success(let outcome): run.progress.members[index].end(outcome)
            case .failure(let error):
                run.progress.members[index].end(
                    failure: run.stopped
                        ? "stopped before the phone's page streamed" : (error as? StudioRefusal)?.message ?? "\(error)",
                    stopped: run.stopped)
            }
            run.progress.refresh()
        }
    }

    /// Once every part ended: the laptop's prompts said, the decisions made meanwhile applied, and
    /// then the recording said to have ended, so that a page that stops asking once it ended sees
    /// each take as it is; a decision made after is applied at once.
    private func end(_ laptop: Speech) async {
        await laptop.finish()
        let applied = Result { () throws(StudioRefusal) in try applyDecisions() }
        run.withLock { run in
            run.progress.end()
            if case .failure(let refusal) = applied { run.progress.error = refusal.message }
        }
    }

    /// Records, and lets go of the recorder, and with it the user's lock, when it returns.
    private func outcome(
        of member: RecordingMember, member index: Int, phones: PhonePairing, laptop: Speech
    ) async throws -> RecordingOutcome {
        let recorder: SessionRecorder
        if let opened = run.withLock({ $0.recorders[index] }) {
            recorder = opened
        } else {
            guard let opened = try await waitForPhone(member, member: index, phones: phones) else {
                throw CancellationError()
            }
            recorder = opened
        }
        defer { run.withLock { $0.recorders[index] = nil } }
        let showing = run.withLock { $0.links[index] }
        let speech = Speech(
            voice: .printed,
            print: { prompt in
                showing?.show(prompt: prompt)
                if self.run.withLock({ $0.leads(index) }) { laptop.say(prompt) }
            },
            warn: { _ in })
        let outcome = await recorder.run(
            speech: speech, ended: { record in self.run.withLock { $0.progress.takes.append(.init(record: record)) } })
        // The studio outlives the recording: the phone's link stops keeping readings for it.
        recorder.sensor.stop()
        recorder.companion?.sensor.stop()
        await speech.finish()
        showing?.show(prompt: outcome.interruption == nil ? "Done" : "Stopped")
        return outcome
    }

    /// The phone's recorder once its page streams; nil if stopped first.
    private func waitForPhone(
        _ member: RecordingMember, member index: Int, phones: PhonePairing
    ) async throws(StudioRefusal) -> SessionRecorder? {
        let (recorder, link) = try await self.recorder(member, phones: phones)
        return run.withLock { run in
            guard !run.stopped else { return nil }
            run.progress.members[index].state = .recording
            run.progress.refresh()
            run.recorders[index] = recorder
            run.links[index] = link
            return recorder
        }
    }

    /// Discards the takes marked for it, and restores those kept again, through the archive.
    private func applyDecisions() throws(StudioRefusal) {
        try applying.withLock { _ throws(StudioRefusal) in try applyMarkedDecisions() }
    }

    private func applyMarkedDecisions() throws(StudioRefusal) {
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
/// take and rest lengths, and the phone recorded with a board (`with`, as `--with phone`); those
/// left out take `gesture record`'s defaults. A group recording names, in place of the device and
/// the user, each phone by its number and the user who holds it.
struct RecordingRequest: Decodable {
    var device: String?
    var with: String?
    var user: String?
    var gesture: String?
    var takes: Int?
    var take: Double?
    var rest: Double?
    var phones: [PhoneUser]?

    struct PhoneUser: Decodable {
        var phone: Int
        var user: String?
    }

    /// Each device's part, a plan each: the one device's, or each phone's of a group.
    func members(names: RecordedNames) throws(StudioError) -> [RecordingMember] {
        guard let phones else {
            let device = device ?? PhoneSensor.id
            if let with {
                guard PhoneSensor.names(with) else {
                    throw StudioError("with: the studio records a board with a phone")
                }
                guard !PhoneSensor.names(device) else {
                    throw StudioError("with: \(device) is a phone already; a phone records with a board")
                }
            }
            return [
                RecordingMember(
                    device: device, companion: with, plan: try plan(for: user, names: names),
                    waits: PhoneSensor.names(device) || with != nil)
            ]
        }
        guard device == nil, user == nil else {
            throw StudioError("a group recording names a user for each phone, not a device or a user")
        }
        guard with == nil else {
            throw StudioError("with: a group records its phones alone; a phone records with a board")
        }
        guard !phones.isEmpty else { throw StudioError("a group recording names at least one phone and its user") }
        let members = try phones.map { phone throws(StudioError) in
            RecordingMember(
                device: PhoneSensor.device(phone.phone), companion: nil, plan: try plan(for: phone.user, names: names),
                waits: false)
        }
        for (index, member) in members.enumerated() {
            let earlier = members[..<index]
            if earlier.contains(where: { $0.device == member.device }) {
                throw StudioError("phone \(phones[index].phone) is named twice")
            }
            if earlier.contains(where: { $0.plan.user.rawValue.lowercased() == member.plan.user.rawValue.lowercased() })
            {
                throw StudioError("\(member.plan.user) is named for two phones: each phone records its own user")
            }
        }
        return members
    }

    /// The plan for `user`, with a user or gesture that differs from one `names` holds only in case
    /// spelled as held, as `gesture record` does.
    private func plan(for user: String?, names: RecordedNames) throws(StudioError) -> SessionPlan {
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

/// One device's part of a recording, and whether it waits for its phone's page to stream (the
/// one phone of a recording does; each phone of a group must stream when it starts).
struct RecordingMember: Sendable {
    var device: String
    /// The phone recorded with the device, a board, on its rows.
    var companion: String?
    var plan: SessionPlan
    var waits: Bool
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

/// What the page reads of a recording: its state, the prompts said so far, the takes that ended,
/// and each device's part (a phone of a group and its user, or the one device).
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

    /// One device's part: how it goes or ended, and why it stopped or failed.
    struct Member: Encodable, Sendable {
        var device: String
        var user: String
        var state = State.waiting
        var error: String?

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

    var state = State.idle
    /// One more than the last progress's at each change, across recordings: a page that reads
    /// progress by several requests at once keeps the newest, whichever answer comes last.
    var revision = 0
    /// The devices and the users, each member's, joined by commas.
    var device = ""
    var user = ""
    var gesture = ""
    var plannedTakes = 0
    var prompts: [String] = []
    /// Every member's takes, in the order they ended.
    var takes: [Take] = []
    /// Why the recording stopped or failed (each member's that did, in a group), or a decision
    /// could not be applied.
    var error: String?
    /// Why the prompts are not spoken, if they are not.
    var warnings: [String] = []
    var members: [Member] = []

    init() {}

    init(_ members: [RecordingMember]) {
        state = .waiting
        self.members = members.map { Member(device: $0.device, user: $0.plan.user.rawValue) }
        device = self.members.map(\.device).joined(separator: ", ")
        user = self.members.map(\.user).joined(separator: ", ")
        gesture = members.first?.plan.gesture.rawValue ?? ""
        plannedTakes = members.first?.plan.takes ?? 0
    }

    var isRunning: Bool { state == .waiting || state == .recording }

    /// Why a second start is refused while this recording runs.
    var busy: String {
        let first = members.first?.user ?? user
        let take = takes.filter { $0.record.user.rawValue == first }.count + 1
        return "\(user) \(members.count > 1 ? "are" : "is") recording \(gesture) (take \(take) of \(plannedTakes)): "
            + "wait for it, or stop it"
    }

    /// The state while it runs: recording once a member records, waiting while one waits and none
    /// records; as it was once every member ended, until `end`.
    mutating func refresh() {
        if members.contains(where: { $0.state == .recording }) {
            state = .recording
        } else if members.contains(where: { $0.state == .waiting }) {
            state = .waiting
        }
    }

    /// The state once every member ended: finished when each did, failed when each failed, else stopped.
    mutating func end() {
        let states = members.map(\.state)
        state =
            states.allSatisfy { $0 == .finished } ? .finished : states.allSatisfy { $0 == .failed } ? .failed : .stopped
        let errors = members.compactMap { member in member.error.map { (member, $0) } }
        error =
            members.count == 1
            ? errors.first?.1
            : errors.isEmpty ? nil : errors.map { "\($0.user) on \($0.device): \($1)" }.joined(separator: "; ")
    }
}
