import GestureMotion

/// The game of Machine Learning by Tutorials' GestureIt, as pure logic: it calls out a random gesture, a detection of
/// that gesture scores and, after a pause, calls out the next; the winning score ends the game, and
/// so does a detection of another gesture or the timeout. Time comes from the caller.
public struct GestureGame: Sendable {
    public enum Event: Sendable, Equatable {
        /// Say the gesture.
        case prompt(String)
        case scored(score: Int)
        /// The winning score was reached: nothing follows.
        case won(score: Int)
        case over(reason: String, score: Int)

        /// What the game says when it happens.
        public var announcement: String {
            switch self {
            case .prompt(let gesture): "\(gesture.capitalized) it!"
            case .scored(let score): "Point! \(score)"
            case .won(let score): "\(score) points. You win!"
            case .over(_, let score): "Game over. Score: \(score)"
            }
        }

        /// Why the game ended, when it did: "won", or what went wrong.
        public var ending: String? {
            switch self {
            case .won: "won"
            case .over(let reason, _): reason
            case .prompt, .scored: nil
            }
        }
    }

    public let gestures: [String]
    public let timeout: Double
    /// The score that wins the game; nil for a game that only a mistake ends.
    public let rounds: Int?
    /// Seconds between a point and the next call, while the player lowers their hand.
    public let pause: Double
    public private(set) var score = 0
    /// The gesture called out, nil during a pause.
    public private(set) var current: String?
    public private(set) var isOver = false
    private var deadline = 0.0
    private var random: SeededRandom

    public init(gestures: [String], timeout: Double, rounds: Int? = nil, pause: Double = 0, seed: UInt64) {
        precondition(!gestures.isEmpty, "a game needs gestures")
        self.gestures = gestures
        self.timeout = timeout
        self.rounds = rounds
        self.pause = pause
        random = SeededRandom(seed: seed, "game")
    }

    public mutating func start(at time: Double) -> [Event] {
        [prompt(at: time)]
    }

    /// What happens by `time`, given the gesture detected then, if any, and whether the player is
    /// at rest. Detections during a pause do not count, and the next call waits, after the pause,
    /// for the player to be at rest (a gesture still going on would count for the next call), but
    /// no longer than the timeout.
    public mutating func advance(to time: Double, detected gesture: String?, resting: Bool = true) -> [Event] {
        guard !isOver else { return [] }
        guard let current else {
            return time >= deadline && (resting || time >= deadline + timeout) ? [prompt(at: time)] : []
        }
        if let gesture {
            guard gesture == current else { return [end("saw \(gesture), not \(current)")] }
            score += 1
            if score == rounds {
                isOver = true
                return [.won(score: score)]
            }
            guard pause > 0 else { return [.scored(score: score), prompt(at: time)] }
            self.current = nil
            deadline = time + pause
            return [.scored(score: score)]
        }
        return time >= deadline ? [end("no \(current) within \(formatted(timeout)) s")] : []
    }

    private mutating func prompt(at time: Double) -> Event {
        let gesture = gestures.randomElement(using: &random)!
        current = gesture
        deadline = time + timeout
        return .prompt(gesture)
    }

    private mutating func end(_ reason: String) -> Event {
        isOver = true
        return .over(reason: reason, score: score)
    }

    private func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
