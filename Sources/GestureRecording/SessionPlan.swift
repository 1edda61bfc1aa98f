import GestureCore
import GestureSpeech

/// What `gesture record` was asked for, and the timeline that follows from it.
///
/// Times are seconds since the recording started. Each take is a session of its own:
/// "get ready" and the countdown (rest), the take (the gesture), then the rest before the next take.
/// The intro before the first take is not recorded; it lets the attitude filter settle.
public struct SessionPlan: Sendable, Equatable {
    public var user: UserID
    public var gesture: ActivityLabel
    public var takes: Int
    /// Seconds the gesture is performed in each take.
    public var take: Double
    /// Seconds of rest after each take.
    public var rest: Double
    /// Seconds between "get ready" and the countdown.
    public var getReady: Double
    /// Seconds counted down before "go".
    public var countdown: Int
    /// Seconds between "session start" and the first take.
    public var intro: Double
    /// Whether go and stop are prompted; without, one take is recorded until stopped, labeled
    /// `gesture` (rest included) throughout.
    public var prompted = true
    /// Without prompts, the gestures the simulated person makes, one every `scriptInterval` seconds.
    public var script: [ActivityLabel] = []
    public static let scriptInterval = 5.0

    public init(
        user: UserID, gesture: ActivityLabel, takes: Int, take: Double = 4, rest: Double = 3,
        getReady: Double = 1.5, countdown: Int = 3, intro: Double = 2
    ) throws(PlanError) {
        try self.init(
            user: user, gesture: gesture, takes: takes, take: take, rest: rest, getReady: getReady,
            countdown: countdown, intro: intro, prompted: true)
    }

    /// A recording without prompts: one take of at most `seconds`, labeled `label` throughout,
    /// that ends when it is stopped; the simulated person makes the gestures of `script`.
    public static func continuous(
        user: UserID, label: ActivityLabel, seconds: Double, script: [ActivityLabel] = []
    ) throws(PlanError) -> SessionPlan {
        var plan = try SessionPlan(
            user: user, gesture: label, takes: 1, take: seconds, rest: 0, getReady: 0, countdown: 0, intro: 2,
            prompted: false)
        plan.script = script
        return plan
    }

    private init(
        user: UserID, gesture: ActivityLabel, takes: Int, take: Double, rest: Double, getReady: Double,
        countdown: Int, intro: Double, prompted: Bool
    ) throws(PlanError) {
        self.prompted = prompted
        self.user = user
        self.gesture = gesture
        self.takes = takes
        self.take = take
        self.rest = rest
        self.getReady = getReady
        self.countdown = countdown
        self.intro = intro
        guard (1...Self.maximumTakes).contains(takes) else {
            throw PlanError("takes must be from 1 to \(Self.maximumTakes), not \(takes)")
        }
        guard gesture != .rest || !prompted else {
            throw PlanError("'rest' is the label between takes, not a gesture")
        }
        for (name, seconds) in [("take", take), ("rest", rest), ("get ready", getReady), ("intro", intro)] {
            guard seconds.isFinite, (0...Self.maximumSeconds).contains(seconds) else {
                throw PlanError("\(name) must be from 0 to \(Int(Self.maximumSeconds)) seconds, not \(seconds)")
            }
        }
        guard take >= Self.shortestTake else {
            throw PlanError(
                "take must last at least \(Int(Self.shortestTake)) second, long enough to make a gesture, not \(take)")
        }
        guard (0...Int(Self.maximumSeconds)).contains(countdown) else {
            throw PlanError("countdown must be from 0 to \(Int(Self.maximumSeconds)) seconds, not \(countdown)")
        }
    }

    /// Limits that keep a mistyped number from filling the disk or the memory: a thousand takes of
    /// an hour each is more than anyone records at once.
    public static let maximumTakes = 1000
    public static let maximumSeconds = 3600.0
    /// The shortest take: a second is about the shortest gesture a person makes.
    public static let shortestTake = 1.0

    public var cycle: Double { getReady + Double(countdown) + take + rest }
    public var duration: Double { sessionEnd(take: takes) }

    public func sessionStart(take number: Int) -> Double { intro + Double(number - 1) * cycle }
    public func go(take number: Int) -> Double { sessionStart(take: number) + getReady + Double(countdown) }
    public func stop(take number: Int) -> Double { go(take: number) + take }
    public func sessionEnd(take number: Int) -> Double { stop(take: number) + rest }

    /// Every prompt of the recording, in order.
    public var prompts: [Prompt] {
        guard prompted else {
            return [
                Prompt(.sessionStart, at: 0, "Recording \(gesture) until stopped"),
                Prompt(.sessionComplete, at: duration, "Session complete"),
            ]
        }
        var prompts = [
            Prompt(.sessionStart, at: 0, "Session start: \(takes) \(takes == 1 ? "take" : "takes") of \(gesture)")
        ]
        for number in 1...takes {
            let start = sessionStart(take: number)
            prompts.append(Prompt(.getReady(take: number), at: start, "Get ready to \(gesture)"))
            for count in stride(from: countdown, to: 0, by: -1) {
                prompts.append(Prompt(.countdown(count), at: go(take: number) - Double(count), "\(count)"))
            }
            prompts.append(Prompt(.go(take: number), at: go(take: number), "Go"))
            prompts.append(Prompt(.stop(take: number), at: stop(take: number), "Stop"))
            if rest > 0 {
                prompts.append(Prompt(.rest(take: number), at: stop(take: number) + min(1, rest / 2), "Rest"))
            }
        }
        prompts.append(Prompt(.sessionComplete, at: duration, "Session complete"))
        return prompts
    }
}

public struct PlanError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// Something the recorder says to the person recording.
public struct Prompt: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case sessionStart
        case getReady(take: Int)
        case countdown(Int)
        case go(take: Int)
        case stop(take: Int)
        case rest(take: Int)
        case sessionComplete
    }

    public var kind: Kind
    /// Seconds since the recording started.
    public var time: Double
    public var text: String

    public init(_ kind: Kind, at time: Double, _ text: String) {
        self.kind = kind
        self.time = time
        self.text = text
    }

    public var description: String { text }
}

extension Speech {
    public func say(_ prompt: Prompt) { say(prompt.text) }
}
