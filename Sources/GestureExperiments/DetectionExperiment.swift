import GestureAnalysis
import GestureCore
import GestureLearning
import GestureLive

extension EventScore {
    /// What `gesture detect --evaluate` finds in each session: the live detector fed the session's
    /// rows as a replay feeds them, its detections scored against the session's labels.
    public init(
        model: GestureModel, sessions: [RecordedSession], settings: DetectionSettings = DetectionSettings()
    ) throws(LiveError) {
        var total = EventScore.none
        for session in sessions {
            var detector = try LiveDetector(model: model, sensorRate: session.nominalRate, settings: settings)
            let detections = session.rows.compactMap { row in
                detector.add(
                    RawSample(time: row.timestamp, acceleration: row.rawAcceleration, rotationRate: row.rawRotationRate)
                ).detection
            }
            let timeline = session.rows.map { (time: $0.timestamp, label: $0.activity) }
            let minutes = ((session.rows.last?.timestamp ?? 0) - (session.rows.first?.timestamp ?? 0)) / 60
            total =
                total + EventScore(detections: detections, events: GestureEvent.events(in: timeline), minutes: minutes)
        }
        self = total
    }
}
