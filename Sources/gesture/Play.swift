import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureLive
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStudio

import struct SystemPackage.FilePath

struct Play: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract: "The game: it calls out a gesture, you make it; a point when the model agrees.",
        discussion: """
            The game ends on a wrong gesture or when no gesture comes in time. On the simulated sensor a \
            simulated player performs each gesture called out; with --mistakes, now and then the wrong one, and says so.
            """)

    @OptionGroup var options: DetectionOptions
    @OptionGroup var sensor: SensorOptions
    @Option(help: "Seconds to make each gesture.") var timeout = 5.0
    @Option(help: "The game is won at this many points.") var rounds = 10
    @Option(help: "Simulated player: the chance of making the wrong gesture on purpose.") var mistakes = 0.0
    @Flag(help: "Print the calls instead of speaking them.") var quiet = false
    @Option(name: .customLong("speech-to"), help: "Write each call as a WAV file into this folder.") var speechTo:
        String?
    @Option(
        help:
            "Before the game: record this many takes of each gesture by --user, personalise the model with all of that user's sessions (k nearest neighbours, as `gesture personalize`), and play with it."
    )
    var personalize: Int?
    @Option(help: "With --personalize: the player, whose takes are recorded.") var user: String?
    @OptionGroup var folder: FolderOptions
    /// Where to serve the phone's page, for `--device phone`.
    @OptionGroup var server: ServerOptions

    func run() async throws {
        try checkNumbers()
        var options = options
        options.model = try await modelToPlayWith()
        let phone = try await PhoneConnection.open(for: sensor, fast: options.fast, server, folder: folder.folder)
        let setup = try LiveSetup(
            options, sensor: sensor, holder: user ?? "player", opened: try phone?.device(through: sensor))
        let voice: Speech.Voice = speechTo.map { .wavFiles(FilePath($0)) } ?? (quiet ? .printed : .espeak)
        let speech = Speech(
            voice: voice,
            print: { call in
                Terminal.say("» \(call)")
                phone?.show(call)
            }, warn: Terminal.warn)
        let (score, ending, signal) = try await play(on: setup, saying: speech)
        await speech.finish()
        await phone?.close(saying: "Score: \(score)")
        Terminal.say("final score \(score)\(ending.map { " (\($0))" } ?? "")")
        if let signal { throw interrupted(by: signal) }
    }

    func checkNumbers() throws {
        try Failure.check("--timeout", timeout, in: 0.5...3600, being: "a number of seconds")
        try Failure.check("--mistakes", mistakes, in: 0...1, being: "a probability")
        try Failure.check("--rounds", rounds, in: 1...1000)
        if let personalize { try Failure.check("--personalize", personalize, in: 1...100) }
        _ = try options.settings
    }

    /// The model given, or with --personalize, the one personalised with the player's new takes.
    private func modelToPlayWith() async throws -> String {
        guard let takes = personalize else { return options.model }
        if sensor.device == PhoneSensor.id {
            throw Failure.usage(
                "--personalize records with its own run of the phone's page: record the takes with "
                    + "`gesture record --device phone`, then `gesture personalize`")
        }
        guard let user, takes >= 1 else {
            throw Failure.usage("--personalize needs a positive number of takes and the player's --user")
        }
        return try await personalised(takes: takes, user: try userID(user))
    }

    /// Plays until the game ends or a signal comes: the final score, why it ended, and the signal.
    private func play(on setup: LiveSetup, saying speech: Speech) async throws -> (Int, String?, Int32?) {
        var run = GameRun(
            game: GestureGame(gestures: setup.gestures, timeout: timeout, rounds: rounds, pause: 2, seed: sensor.seed),
            detector: setup.detector)
        var player = SimulatedPlayer(
            performer: setup.device as? any GesturePerformer, gestures: setup.gestures,
            mistakes: mistakes, seed: sensor.seed)
        var ending: String?
        let signal = try await setup.run(for: .infinity) { (sampler: Sampler, sample: RawSample) in
            for event in run.advance(with: sample) {
                speech.say(event.announcement)
                if case .prompt(let gesture) = event, let made = player.perform(gesture, at: sample.time),
                    made != gesture
                {
                    Terminal.say("» (the simulated player makes \(made) instead, on purpose: --mistakes)")
                }
                if let end = event.ending {
                    ending = end
                    sampler.stop()
                }
            }
        }
        return (run.game.score, ending, signal)
    }

    /// Records the player's takes of every gesture, personalises the model with their sessions, and
    /// returns where the personalised model was written: beside the model, named after the player.
    private func personalised(takes: Int, user: UserID) async throws -> String {
        let base = try loadModel(options.model)
        var sensor = sensor
        sensor.rate = sensor.rate ?? base.samplingRate
        let voice: Speech.Voice = quiet ? .printed : .espeak
        for gesture in base.classNames.filter({ $0 != ActivityLabel.rest.rawValue }) {
            Terminal.say("» \(user.rawValue): \(takes) takes of \(gesture) before the game")
            try await RecordingRun(
                plan: try SessionPlan(user: user, gesture: try activityLabel(gesture), takes: takes), sensor: sensor,
                folder: folder.folder, voice: voice, fast: options.fast, append: true, decision: .keep
            ).run()
        }
        let path = (options.model as NSString).deletingPathExtension + "-\(user.rawValue).model"
        let personalize = try Personalize.parse([
            "--model", options.model, "--recordings", folder.path, "--user", user.rawValue, "-o", path,
        ])
        try await personalize.run()
        return path
    }
}
