import ArgumentParser
import Dispatch
import Foundation
import GestureArchive
import GestureCommandLine
import GestureCore
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore
import GestureStudio

import struct SystemPackage.FilePath

struct Record: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record takes of a gesture, labeled, into the user's CSV and the catalog.")

    @Option(help: "Who is recording: names their file, so no '-', '/' or spaces.", completion: Completions.users)
    var user: String

    @Option(
        help: "The gesture to perform, e.g. shake, chop, drive; required unless --continuous.",
        completion: Completions.gestures)
    var gesture: String?

    @Flag(help: "Record one take without prompts until stopped (Ctrl-C), labeled rest or --as.")
    var continuous = false

    @Option(
        name: .customLong("as"), help: "With --continuous: the label of every row.", completion: Completions.gestures)
    var label = "rest"

    @Option(help: "With --continuous: stop after this many seconds.")
    var seconds = SessionPlan.maximumSeconds

    @Option(
        parsing: .upToNextOption,
        help: "With --continuous on the simulated sensor: gestures the simulated person makes, one every 5 s.")
    var perform: [String] = []

    @Option(help: "How many takes to record.")
    var takes = 5

    @Option(help: "Seconds the gesture is performed in each take.")
    var take = 4.0

    @Option(help: "Seconds of rest after each take.")
    var rest = 3.0

    @OptionGroup var sensor: SensorOptions

    @Option(
        name: .customLong("with"),
        help: """
            A second device recorded with --device, its reading at each row's time beside the row's: phone for \
            the phone's page, or any device --device takes. Its columns are prefixed with its kind \
            (phone.rawAccelX); the takes go to <user>-recordings-with-<kind>.csv.
            """)
    var companion: String?

    @OptionGroup var server: ServerOptions
    @OptionGroup var folder: FolderOptions

    @Flag(help: "Show the sensor live below the prompts, as `gesture monitor` does.")
    var monitor = false

    @Flag(help: "Print the prompts instead of speaking them.")
    var quiet = false

    @Option(name: .customLong("speech-to"), help: "Write each spoken prompt as a WAV file into this folder.")
    var speechTo: String?

    @Flag(help: "Append to the user's file without asking.")
    var append = false

    @Flag(exclusivity: .exclusive, help: "Keep or discard the takes without asking.")
    var decision: Decision?

    @Flag(help: "Run on simulated time, without waiting (simulated sensor and replays only).")
    var fast = false

    enum Decision: EnumerableFlag { case keep, discard }

    func run() async throws {
        let plan: SessionPlan
        let known = RecordedNames(folder: folder.folder)
        let user = try userID(known.users.spelled(user, what: "user"))
        do {
            if continuous {
                let label = try activityLabel(known.gestures.spelled(label, what: "gesture"))
                plan = try .continuous(
                    user: user, label: label, seconds: seconds, script: try perform.map(activityLabel))
            } else {
                guard let gesture else { throw Failure.usage("--gesture is required, unless --continuous") }
                guard seconds == SessionPlan.maximumSeconds else {
                    throw Failure.usage("--seconds is for --continuous; takes last --take seconds each")
                }
                let label = try activityLabel(known.gestures.spelled(gesture, what: "gesture"))
                plan = try SessionPlan(user: user, gesture: label, takes: takes, take: take, rest: rest)
            }
        } catch let error as PlanError {
            throw Failure.usage(error.description)
        }
        let voice: Speech.Voice = speechTo.map { .wavFiles(FilePath($0)) } ?? (quiet ? .printed : .espeak)
        try await RecordingRun(
            plan: plan, sensor: sensor, companion: companion, server: server, folder: folder.folder, voice: voice,
            monitor: monitor, fast: fast, append: append, decision: decision
        ).run()
    }
}

/// A recording as a person runs it: questions before and after, prompts, Ctrl-C, a summary.
struct RecordingRun {
    var plan: SessionPlan
    var sensor: SensorOptions
    /// The device `--with` names.
    var companion: String?
    /// Where to serve the phone's page, for `--device phone`.
    var server = ServerOptions()
    var folder: RecordingsFolder
    var voice: Speech.Voice
    var monitor = false
    var fast: Bool
    var append: Bool
    var decision: Record.Decision?

    func run() async throws {
        let (outcome, signal) = try await record()
        try finish(outcome, signal: signal)
    }

    /// Records, and lets go of the user's lock when it returns.
    private func record() async throws -> (RecordingOutcome, signal: Int32?) {
        if companion == PhoneSensor.id, sensor.device == PhoneSensor.id {
            throw Failure.usage("--with phone: the phone is --device already; --with names a second device")
        }
        let clock: any SamplingClock = fast ? ManualClock() : MonotonicClock()
        let (device, phone) = try await open(sensor, clock: clock)
        let (companion, companionPhone) = try await openCompanion()
        let recorder: SessionRecorder
        do {
            recorder = try SessionRecorder(
                plan: plan, sensor: device, clock: clock, rate: sensor.rate(for: device), folder: folder,
                companion: companion, waiting: Terminal.note)
        } catch {
            throw Failure.usage("\(error)")
        }
        let phones = [phone, companionPhone].compactMap { $0 }
        (device.warnings + (companion?.sensor.warnings ?? [])).forEach(Terminal.warn)
        if recorder.isAppending, !append {
            let question = "\(plan.user) already has recordings in \(recorder.file). Append to them?"
            guard Terminal.ask(question, default: false) == true else {
                throw Failure.usage("not appending to \(recorder.file); pass --append to append")
            }
        }
        let signals = SignalWatch { [weak recorder] in recorder?.interrupt(reason: "interrupted by \($0)") }
        let view =
            monitor
            ? MonitorView(device: device.info, rate: recorder.rate, range: DeviceDirectory.knownRanges[device.info.id])
            : nil
        let show: @Sendable (String) -> Void = { line in
            if let view { view.print(line) } else { Terminal.say(line) }
        }
        let speech = Speech(
            voice: voice,
            print: { prompt in
                show("» \(prompt)")
                for phone in phones { phone.show(prompt) }
            }, warn: Terminal.warn)
        let outcome = await recorder.run(speech: speech, observe: { view?.add($0) })
        await speech.finish()
        for phone in phones { await phone.close(saying: outcome.interruption == nil ? "Done" : "Stopped") }
        for (sensor, lost) in [(device, outcome.lostReadings), (companion?.sensor, outcome.companionLostReadings)]
        where lost > 0 {
            Terminal.warn(
                "\(sensor!.info.id): \(lost.counting("reading")) lost: not read in time, or delivered too late")
        }
        return (outcome, signals.received)
    }

    /// The device `--with` names, opened as `--device` opens it, on a clock that reads what the
    /// recording's does: the phone through the studio or a page of its own.
    private func openCompanion() async throws -> (Companion?, PhoneConnection?) {
        guard let companion else { return (nil, nil) }
        var options = sensor
        options.device = companion
        let clock: any SamplingClock = fast ? ManualClock() : MonotonicClock()
        let (device, companionPhone) = try await open(options, clock: clock)
        let kind = String(device.info.id.prefix { $0 != ":" })
        let rate = (device as? ProfiledSensor)?.profile.rate
        return (Companion(sensor: device, clock: clock, prefix: kind, rate: rate), companionPhone)
    }

    /// The device `options` names: the phone through the studio or a page of its own, and only a
    /// simulated or replayed one with `--fast`.
    private func open(
        _ options: SensorOptions, clock: any SamplingClock
    ) async throws -> (any MotionSensor, PhoneConnection?) {
        let phone = try await PhoneConnection.open(for: options, fast: fast, server, folder: folder)
        let device = try phone?.device(through: options) ?? options.open(holder: plan.user, clock: clock)
        if fast, !(device is SimulatedSensor || device is ReplaySensor) { throw Failure.fastNeedsSimulatedTime }
        return (device, phone)
    }

    private func finish(_ outcome: RecordingOutcome, signal: Int32?) throws {
        Terminal.say(Summary.recording(outcome, folder: folder))
        if let error = outcome.catalogError {
            let ids = outcome.unsaved.map(\.id.rawValue).joined(separator: ", ")
            let rows = outcome.unsaved.map(\.sampleCount).reduce(0, +)
            Terminal.warn(
                "\(error); the catalog lacks the last state of \(ids), whose \(rows.counting("row")) are in \(outcome.file): "
                    + "`gesture check --repair` counts them once the catalog can be written")
        }
        if let interruption = outcome.interruption {
            throw Failure(
                message: Summary.interrupted(outcome, because: interruption), code: signal.map { 128 + $0 } ?? 1)
        }
        let ids = outcome.sessions.map(\.id)
        let keep =
            switch decision {
            case .keep: true
            case .discard: false
            case nil:
                Terminal.ask(ids.count == 1 ? "Keep this take?" : "Keep these \(ids.count) takes?", default: true)
                    ?? true
            }
        guard !keep else { return }
        do {
            try Archive(folder: folder).discard(ids, reason: "discarded after recording")
        } catch {
            throw Failure.failed(error.description)
        }
        Terminal.say(
            "Discarded \(ids.count.counting("take")); `gesture restore \(ids.map(\.rawValue).joined(separator: " "))` brings them back."
        )
    }
}
