import GestureCore

/// A game played on a live detector, one reading at a time: the game's calls and the detector's
/// detections, on the readings' time. The detector keeps its state from call to call, as a
/// streaming model must: a gesture made right after a call is seen only by a warmed-up detector.
/// A call ends the cooldown of the last detection, so the gesture called counts as soon as it is
/// seen, and after a point the next call waits for the model to see rest.
public struct GameRun {
    public private(set) var game: GestureGame
    private var run: DetectionRun
    private var started = false
    /// Whether the latest prediction was rest: the player's hand is down.
    private var resting = true

    /// Seconds for the attitude filter to settle before the first call.
    public static let settling = 1.0

    public init(game: GestureGame, detector: LiveDetector) {
        self.game = game
        run = DetectionRun(detector: detector)
    }

    /// Feeds one reading; returns what the game does by its time.
    public mutating func advance(with sample: RawSample) -> [GestureGame.Event] {
        var events: [GestureGame.Event] = []
        if !started {
            started = true
            events = game.start(at: sample.time + Self.settling)
        }
        let reading = run.add(sample)
        if let prediction = reading.prediction { resting = prediction.gesture == ActivityLabel.rest.rawValue }
        events += game.advance(to: sample.time, detected: reading.detection?.gesture, resting: resting)
        if events.contains(where: { if case .prompt = $0 { true } else { false } }) { run.rearm() }
        return events
    }
}
