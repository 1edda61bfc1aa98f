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
            var run = DetectionRun(
                detector: try LiveDetector(model: model, sensorRate: session.nominalRate, settings: settings))
            for row in session.rows {
                _ = run.add(
                    RawSample(time: row.timestamp, acceleration: row.rawAcceleration, rotationRate: row.rawRotationRate)
                )
            }
            let start = session.rows.first?.timestamp ?? 0
            total = total + run.score(against: session.rows.map { (time: $0.timestamp - start, label: $0.activity) })
        }
        self = total
    }
}
