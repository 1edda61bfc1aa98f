import GestureCore
import GestureMotion

/// The simulated person playing: makes the gesture called out, or now and then another one.
public struct SimulatedPlayer {
    let performer: (any GesturePerformer)?
    let gestures: [String]
    let mistakes: Double
    private var random: SeededRandom
    private var turn = 0

    public init(performer: (any GesturePerformer)?, gestures: [String], mistakes: Double, seed: UInt64) {
        self.performer = performer
        self.gestures = gestures
        self.mistakes = mistakes
        random = SeededRandom(seed: seed, "player")
    }

    /// Makes `called`, or with chance `mistakes` another of the gestures, starting 0.6 s after `time`;
    /// returns the gesture it makes.
    @discardableResult
    public mutating func perform(_ called: String, at time: Double) -> String? {
        guard let performer else { return nil }
        turn += 1
        let others = gestures.filter { $0 != called }
        let made = random.uniform(0...1) < mistakes ? others.randomElement(using: &random) ?? called : called
        guard let user = try? UserID("player"), let gesture = try? ActivityLabel(made) else { return nil }
        let go = time + 0.6
        performer.perform(
            Performance(
                user: user, gesture: gesture, take: turn, sessionStart: time,
                sessionEnd: go + 4, go: go, stop: go + 3))
        return made
    }
}
