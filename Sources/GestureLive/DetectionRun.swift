import GestureCore

/// One reading of a detection run, its times counted from the run's first reading.
public struct LiveReading: Sendable {
    public var sample: RawSample
    /// Seconds since the run's first reading.
    public var time: Double
    public var prediction: Prediction?
    public var detection: Prediction?
}

/// A model listening to a sensor's readings, one at a time: each reading fed to the live detector,
/// its time and those of its prediction and detection counted from the first reading, and the
/// detections kept for scoring. `gesture detect`, `gesture play`, the studio's live view and the
/// benchmarks all run one; a run without a model only keeps time.
public struct DetectionRun {
    public private(set) var detector: LiveDetector?
    /// The detections so far.
    public private(set) var detections: [Prediction] = []
    private var first: Double?
    private var last: Double?

    public init(detector: LiveDetector?) {
        self.detector = detector
    }

    /// Seconds from the first reading to the latest.
    public var duration: Double { (last ?? 0) - (first ?? 0) }

    public mutating func add(_ sample: RawSample) -> LiveReading {
        let start = first ?? sample.time
        first = start
        last = sample.time
        var reading = LiveReading(sample: sample, time: sample.time - start)
        guard let (prediction, detection) = detector?.add(sample) else { return reading }
        reading.prediction = prediction?.since(start)
        reading.detection = detection?.since(start)
        if let detection = reading.detection { detections.append(detection) }
        return reading
    }

    /// Ends the cooldown of the latest detection, keeping the detector warm (`LiveDetector.rearm`).
    public mutating func rearm() {
        detector?.rearm()
    }

    /// The detections scored as events against a labeled timeline, its times counted from the
    /// run's first reading too. Gestures the model does not know are unknown motion, as rest is.
    public func score(against timeline: [(time: Double, label: ActivityLabel)]) -> EventScore {
        let known = Set(detector?.model.classNames ?? [])
        return EventScore(
            detections: detections, events: GestureEvent.events(in: timeline).filter { known.contains($0.gesture) },
            minutes: ((timeline.last?.time ?? 0) - (timeline.first?.time ?? 0)) / 60)
    }
}

extension Prediction {
    fileprivate func since(_ start: Double) -> Prediction {
        var shifted = self
        shifted.time -= start
        return shifted
    }
}
