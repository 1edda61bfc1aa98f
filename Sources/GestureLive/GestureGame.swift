import GestureSensors

/// The game of the book's GestureIt, as pure logic: it calls out a random gesture, a detection of
/// that gesture scores and calls out the next, a detection of another gesture or the timeout ends
/// the game. Time comes from the caller.
public struct GestureGame: Sendable {
    public enum Event: Sendable, Equatable {
        /// Say the gesture; the detector must be reset now, so nothing from before counts.
        case prompt(String)
        case scored(score: Int)
        case over(reason: String, score: Int)
    }

    public let gestures: [String]
    public let timeout: Double
    public private(set) var score = 0
    public private(set) var current: String?
    public private(set) var isOver = false
    private var deadline = 0.0
    private var random: SeededRandom

    public init(gestures: [String], timeout: Double, seed: UInt64) {
        precondition(!gestures.isEmpty, "a game needs gestures")
        self.gestures = gestures
        self.timeout = timeout
        random = SeededRandom(seed: seed, "game")
    }

    public mutating func start(at time: Double) -> [Event] {
        [prompt(at: time)]
    }

    /// What happens by `time`, given the gesture detected then, if any.
    public mutating func advance(to time: Double, detected gesture: String?) -> [Event] {
        guard let current, !isOver else { return [] }
        if let gesture {
            guard gesture == current else { return [end("saw \(gesture), not \(current)")] }
            score += 1
            return [.scored(score: score), prompt(at: time)]
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
