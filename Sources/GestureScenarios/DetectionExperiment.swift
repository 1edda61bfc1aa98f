import GestureAnalysis
import GestureCore
import GestureLearning
import GestureLive
import GestureSimulation

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

extension EventScore {
    /// What the live detector makes of `minutes` of a simulated person going about their day
    /// (`SimulatedSensor`'s everyday motion, no gesture), read at the model's rate as `gesture detect
    /// --device sim --sim-everyday all` reads it: every detection is a false one.
    public init(
        model: GestureModel, everydayOf person: UserID, motions: [EverydayMotion] = EverydayMotion.allCases,
        seed: UInt64, minutes: Double, settings: DetectionSettings = DetectionSettings()
    ) throws(LiveError) {
        let sensor = SimulatedSensor(seed: seed, holder: person, everyday: motions)
        let rate = model.samplingRate
        var run = DetectionRun(detector: try LiveDetector(model: model, sensorRate: rate, settings: settings))
        let count = Int((minutes * 60 * rate).rounded())
        for index in 0..<count {
            do {
                if let sample = try sensor.read(now: Double(index) / rate) { _ = run.add(sample) }
            } catch {
                throw LiveError("the simulated sensor failed: \(error)")
            }
        }
        self = run.score(against: [(0, .rest), (Double(count - 1) / rate, .rest)])
    }
}
