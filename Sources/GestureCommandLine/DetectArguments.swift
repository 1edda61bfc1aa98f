import ArgumentParser
import FoundationEssentials
import GestureCore
import GestureLive
import GestureSensors

/// `gesture detect`'s options, and the detection they ask for: gesture-detect runs it on the
/// sensors it opens itself, and gesture on the phone's page, which it serves.
public struct DetectArguments: ParsableArguments {
    @OptionGroup public var options: DetectionOptions
    @OptionGroup public var sensor: SensorOptions
    @Flag(help: "One JSON object per detection, per line.") var json = false
    @Flag(help: "Print every prediction, not only detections.") var predictions = false
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Option(parsing: .upToNextOption, help: "Simulated sensor: gestures the simulated person performs, one every 5 s.")
    var perform: [String] = []
    @Flag(
        help: """
            With --device replay:FILE: score the detections against the recording's labels, as events; labels \
            the model does not know count as unknown motion, and false detections are given per hour of it.
            """)
    var evaluate = false

    public init() {}

    /// Usage errors for numbers no detection can run with; reads no file.
    public func checkNumbers() throws(Failure) {
        if let duration {
            try Failure.check("--duration", duration, in: 0...Double.infinity, being: "a number of seconds")
        }
        _ = try options.settings
    }

    /// Detects with the sensor `--device` names, or the one `opened` already (the phone's page), and
    /// gives `show` each line it prints, shortened to the gesture and its probability.
    public func run(opened: (any MotionSensor)? = nil, show: (String) -> Void = { _ in }) async throws {
        try checkNumbers()
        let setup = try LiveSetup(options, sensor: sensor, holder: "player", opened: opened)
        let replay = setup.device as? ReplaySensor
        if evaluate, replay == nil {
            throw Failure.usage("--evaluate needs a labeled recording: --device replay:FILE.csv")
        }
        let script = try performances(on: setup)
        var run = DetectionRun(detector: setup.detector)
        let listening =
            "listening to \(setup.device.info.id) at \(setup.rate.shortText) Hz for "
            + "\(setup.gestures.joined(separator: ", ")); Ctrl-C stops"
        let signal = try await setup.run(for: duration ?? script ?? .infinity, announcing: listening) { _, sample in
            let reading = run.add(sample)
            guard let shown = predictions ? reading.prediction : reading.detection else { return }
            Terminal.say(json ? Self.json(shown) : Self.text(shown))
            show("\(shown.gesture) \(shown.probability.fixed(2))")
        }
        if evaluate, let replay { Terminal.say(Self.report(run.score(against: try replay.timeline))) }
        if let adaptation = run.detector?.adaptation { Terminal.note(Self.report(adaptation)) }
        Terminal.note(
            "\(signal.map { _ in "stopped: " } ?? "")\(run.detections.count.counting("detection")) "
                + "in \(run.duration.fixed(1)) s")
        if let signal { throw interrupted(by: signal) }
    }

    /// Cues the simulated person's gestures; returns how long they take, if there are any.
    private func performances(on setup: LiveSetup) throws -> Double? {
        guard !perform.isEmpty else { return nil }
        guard let performer = setup.device as? any GesturePerformer else {
            throw Failure.usage("--perform needs the simulated sensor")
        }
        let start = setup.clock.now()
        for (index, name) in perform.enumerated() {
            let go = start + 2 + 5 * Double(index)
            performer.perform(
                Performance(
                    user: try userID("player"), gesture: try activityLabel(name), take: index + 1,
                    sessionStart: go - 1, sessionEnd: go + 4, go: go, stop: go + 3))
        }
        return 2 + 5 * Double(perform.count)
    }

    static func text(_ detection: Prediction) -> String {
        detection.time.fixed(2).aligningRight(to: 8)
            + " s  \(detection.gesture)  \(detection.probability.fixed(3))  "
            + "(runner-up \(detection.runnerUp) \(detection.runnerUpProbability.fixed(3)))"
            + (detection.isUnknown ? "  unknown motion" : "")
    }

    private struct DetectionLine: Encodable {
        var time: Double
        var gesture: String
        var probability: Double
        var runnerUp: String
        var runnerUpProbability: Double
    }

    static func json(_ detection: Prediction) -> String {
        let line = DetectionLine(
            time: detection.time, gesture: detection.gesture, probability: detection.probability,
            runnerUp: detection.runnerUp, runnerUpProbability: detection.runnerUpProbability)
        return try! jsonLine(line)
    }

    static func report(_ adaptation: StreamAdaptation) -> String {
        "adapted batch norm \(adaptation.adaptations.counting("time")) on "
            + "\(adaptation.seconds(adaptation.accepted).fixed(1)) s of motion the rejection accepted "
            + "(\(adaptation.seconds(adaptation.unknown).fixed(1)) s of unknown motion left out), every \(adaptation.seconds(adaptation.every).fixed(1)) s of it"
    }

    static func report(_ score: EventScore) -> String {
        let delays = score.delays.sorted()
        let delay =
            delays.isEmpty
            ? "no gesture found"
            : "delay from a gesture's start to its detection: median \(delays[delays.count / 2].fixed(2)) s, "
                + "from \(delays.first!.fixed(2)) to \(delays.last!.fixed(2)) s"
        return """

            \(score.events.counting("gesture")): \(score.found) found, \(score.missed) missed; \(score.falseDetections.counting("false detection")) \
            (\(score.falseDetectionsPerMinute.fixed(2)) per minute over \(score.minutes.fixed(1)) min; \
            \(score.falseDetectionsPerHour.fixed(1)) per hour over the \(score.unknownHours.fixed(3)) h no known gesture covers); \
            \(score.repeats.counting("repeat")) of a found gesture
            \(delay)
            """
    }
}
