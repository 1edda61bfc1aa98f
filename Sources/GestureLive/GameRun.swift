import GestureCore

/// A game played on a live detector, one reading at a time: the game's calls and the detector's
/// detections, on the readings' time. The detector keeps its state from call to call, as a
/// streaming model must: a gesture made right after a call is seen only by a warmed-up detector.
public struct GameRun {
    public private(set) var game: GestureGame
    public private(set) var detector: LiveDetector
    private var started = false

    /// Seconds for the attitude filter to settle before the first call.
    public static let settling = 1.0

    public init(game: GestureGame, detector: LiveDetector) {
        self.game = game
        self.detector = detector
    }

    /// Feeds one reading; returns what the game does by its time.
    public mutating func advance(with sample: RawSample) -> [GestureGame.Event] {
        var events: [GestureGame.Event] = []
        if !started {
            started = true
            events = game.start(at: sample.time + Self.settling)
        }
        let detected = detector.add(sample).detection?.gesture
        return events + game.advance(to: sample.time, detected: detected)
    }
}
