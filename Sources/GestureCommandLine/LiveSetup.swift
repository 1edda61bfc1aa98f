import ArgumentParser
import GestureCore
import GestureLearning
import GestureLive
import GestureSensors
import GestureSimulation

public struct DetectionOptions: ParsableArguments {
    @Option(help: "The model file `gesture train` wrote.") public var model: String
    @OptionGroup var detection: DetectionSettingsOptions
    @Flag(help: "Simulated sensor and replays: run on simulated time, without waiting.") public var fast = false
    @Option(
        help: """
            on: motion the model's rejection finds unlike its gestures is never reported; off: every window \
            goes to a class, as with models trained before rejection.
            """)
    var reject = Switch.on
    @Flag(
        help: """
            Adapt the model to the motion it listens to: batch norm's and the random convolutions' statistics \
            re-estimated on the motion the rejection accepts (never on unknown motion), after every \
            --adapt-every seconds of it.
            """)
    var adapt = false
    @Option(help: "With --adapt: seconds of accepted motion between re-estimates.") var adaptEvery = 30.0

    public init() {}

    /// With --adapt, the seconds of accepted motion between re-estimates.
    var adaptingEvery: Double? {
        get throws(Failure) {
            guard adapt else { return nil }
            try Failure.check("--adapt-every", adaptEvery, in: 0.1...3600, being: "a number of seconds")
            return adaptEvery
        }
    }

    public var settings: DetectionSettings {
        get throws(Failure) {
            var settings = try detection.settings
            settings.reject = reject == .on
            return settings
        }
    }
}

/// When a prediction counts as a detection: `gesture detect`'s, and the C library's it exports.
public struct DetectionSettingsOptions: ParsableArguments {
    @Option(help: "The probability a gesture needs to be reported.") public var threshold = 0.9
    @Option(help: "Samples between predictions; must divide the model's window.") public var offset = 5
    @Option(help: "Seconds after a detection during which no other is reported: one gesture's length.")
    public var cooldown = DetectionSettings().cooldown
    @Option(help: "Average this many of the latest predictions.") public var averaging = 1

    public init() {}

    /// The settings, or a usage error naming the option that no detector can run with.
    public var settings: DetectionSettings {
        get throws(Failure) {
            try Failure.check("--offset", offset, in: 1...GestureModel.largestSize)
            try Failure.check("--threshold", threshold, in: 0...1, being: "a probability")
            try Failure.check("--cooldown", cooldown, in: 0...3600, being: "a number of seconds")
            try Failure.check("--averaging", averaging, in: 1...1000)
            return DetectionSettings(offset: offset, threshold: threshold, cooldown: cooldown, averaging: averaging)
        }
    }
}

/// An option that is on or off.
public enum Switch: String, ExpressibleByArgument, CaseIterable, Sendable {
    case on, off
}

/// A model, the sensor it listens to, and the clock they run on.
public struct LiveSetup {
    public let model: GestureModel
    public let device: any MotionSensor
    public let clock: any SamplingClock
    public let rate: Double
    public let detector: LiveDetector

    /// Opens the model and the sensor (unless it is `opened` already), at the model's rate or the
    /// nearest the sensor can do.
    public init(
        _ options: DetectionOptions, sensor: SensorOptions, holder: String, opened: (any MotionSensor)? = nil
    ) throws {
        let settings = try options.settings, adaptingEvery = try options.adaptingEvery
        model = try loadModel(options.model)
        clock = options.fast ? ManualClock() : MonotonicClock()
        device = try opened ?? sensor.open(holder: try userID(holder), clock: clock)
        if options.fast, !(device is SimulatedSensor || device is ReplaySensor) {
            throw Failure.fastNeedsSimulatedTime
        }
        do {
            rate = try device.start(rate: sensor.rate ?? model.samplingRate)
            detector = try LiveDetector(
                model: model, sensorRate: rate, settings: settings, adaptingEvery: adaptingEvery)
        } catch let error as SensorError {
            throw Failure.usage(error.description)
        } catch let error as LiveError {
            throw Failure.usage("\(options.model): \(error)")
        }
        device.warnings.forEach(Terminal.warn)
        if detector.rateMatch.resamples {
            Terminal.warn(
                "\(device.info.id) runs at \(rate.shortText) Hz, the model at \(model.samplingRate.shortText) Hz: "
                    + "one reading in \(detector.rateMatch.keepEvery) is used")
        }
    }

    /// The model's gestures: its classes but rest and background motion.
    public var gestures: [String] {
        model.classNames.filter { ActivityLabel(rawValue: $0)?.isBackground != true }
    }

    /// Samples the sensor on a thread of its own until `duration` passes, the sampler is stopped,
    /// or a replay ends; `each` sees every reading. Returns the signal that stopped it, if one did.
    /// `note` is said once a signal would stop it: a person told "Ctrl-C stops" can press it at once.
    @discardableResult
    public func run(
        for duration: Double, announcing note: String? = nil, _ each: (Sampler, RawSample) -> Void
    ) async throws -> Int32? {
        let sampler = Sampler(sensor: device, clock: clock, rate: rate)
        let watch = SignalWatch { _ in sampler.stop() }
        if let note { Terminal.note(note) }
        do {
            try await sampler.listen(for: duration) { each(sampler, $0.sample) }
        } catch {
            throw Failure.failed("\(error)")
        }
        return watch.received
    }
}

/// The model file at `path`, or a usage error naming it.
public func loadModel(_ path: String) throws -> GestureModel {
    do {
        return try GestureModel(contentsOf: path)
    } catch {
        throw Failure.usage("\(error)")
    }
}
