import GestureCore

/// A gesture as it happened in a labeled recording: a run of samples with its label.
public struct GestureEvent: Sendable, Equatable {
    public var gesture: String
    public var start: Double
    public var end: Double

    public init(gesture: String, start: Double, end: Double) {
        self.gesture = gesture
        self.start = start
        self.end = end
    }

    /// The runs of samples labeled with a gesture (not rest, not background motion) in a timeline of (time, label), in order.
    public static func events(in timeline: [(time: Double, label: ActivityLabel)]) -> [GestureEvent] {
        var events: [GestureEvent] = []
        for (index, sample) in timeline.enumerated() where !sample.label.isBackground {
            if index > 0, timeline[index - 1].label == sample.label, let last = events.indices.last {
                events[last].end = sample.time
            } else {
                events.append(GestureEvent(gesture: sample.label.rawValue, start: sample.time, end: sample.time))
            }
        }
        return events
    }
}

/// Detection scored as events, not windows: which gestures were found, which missed, how many
/// detections matched nothing, and how long after a gesture began it was detected. A gesture held
/// longer than the cooldown is detected again: those repeats are counted apart, neither found nor false.
/// False detections are counted per minute of the whole recording, and per hour of the unknown motion
/// they come from: the time between the known gestures.
public struct EventScore: Sendable, Equatable {
    public var events: Int
    public var found: Int
    public var repeats: Int
    public var falseDetections: Int
    public var minutes: Double
    /// The minutes that no known gesture covers: rest, and motion the model was not taught.
    public var unknownMinutes: Double
    /// Seconds from each found gesture's start to its detection.
    public var delays: [Double]

    public var missed: Int { events - found }
    public var falseDetectionsPerMinute: Double { minutes > 0 ? Double(falseDetections) / minutes : 0 }
    public var unknownHours: Double { unknownMinutes / 60 }
    public var falseDetectionsPerHour: Double { unknownMinutes > 0 ? Double(falseDetections) / unknownHours : 0 }

    /// A detection finds the first unfound event of its gesture that it falls in, or that ended
    /// at most `grace` seconds before it. `events` are the known gestures' only: a detection during
    /// motion the model does not know is false.
    public init(detections: [Prediction], events: [GestureEvent], minutes: Double, grace: Double = 1) {
        var found = Array(repeating: false, count: events.count)
        var delays: [Double] = []
        var (repeats, falseDetections) = (0, 0)
        for detection in detections {
            let matches = events.indices.filter { index in
                events[index].gesture == detection.gesture
                    && detection.time >= events[index].start && detection.time <= events[index].end + grace
            }
            if let match = matches.first(where: { !found[$0] }) {
                found[match] = true
                delays.append(detection.time - events[match].start)
            } else if matches.isEmpty {
                falseDetections += 1
            } else {
                repeats += 1
            }
        }
        self.events = events.count
        self.found = found.filter { $0 }.count
        self.repeats = repeats
        self.falseDetections = falseDetections
        self.minutes = minutes
        unknownMinutes = max(0, minutes - events.map { $0.end - $0.start }.reduce(0, +) / 60)
        self.delays = delays
    }

    /// Nothing to detect, nothing detected: the start of a sum.
    public static let none = EventScore(detections: [], events: [], minutes: 0)

    /// Two recordings' scores as one.
    public static func + (a: EventScore, b: EventScore) -> EventScore {
        var sum = a
        sum.events += b.events
        sum.found += b.found
        sum.repeats += b.repeats
        sum.falseDetections += b.falseDetections
        sum.minutes += b.minutes
        sum.unknownMinutes += b.unknownMinutes
        sum.delays += b.delays
        return sum
    }
}
