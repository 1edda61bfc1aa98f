import Foundation
import GestureCore
import GestureMotion
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore

/// Simulated people record takes of a gesture, and the aligned labels' boundaries and the
/// prompt's are measured against when each person's hand actually moved.
public struct AlignmentExperiment: Sendable {
    public var gesture: ActivityLabel
    public var rate: Double
    public var users: Int
    public var takes: Int
    public var seed: UInt64

    public init(gesture: ActivityLabel, rate: Double, users: Int, takes: Int, seed: UInt64) {
        self.gesture = gesture
        self.rate = rate
        self.users = users
        self.takes = takes
        self.seed = seed
    }

    /// How far each boundary (starts and ends alike) is from the truth, in seconds.
    public struct Errors: Sendable {
        public var aligned: [Double] = []
        public var prompted: [Double] = []
        /// Takes where the aligner found no motion inside the prompt, or no rest to tell it from.
        public var missed = 0

        public init() {}
    }

    /// Records every user's takes into `folder` and measures each take.
    public func run(in folder: RecordingsFolder) async throws -> Errors {
        var errors = Errors()
        for number in 1...users {
            let user = try UserID("u\(number)")
            let plan = try SessionPlan(user: user, gesture: gesture, takes: takes)
            let sensor = SimulatedSensor(seed: seed &+ UInt64(number), holder: user)
            let recorder = try SessionRecorder(
                plan: plan, sensor: sensor, clock: ManualClock(), rate: rate, folder: folder)
            let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
            let outcome = await recorder.run(speech: speech, startDate: Date(timeIntervalSince1970: 1_800_000_000))
            await speech.finish()
            let rows = Dictionary(grouping: try RecordingCSV.rows(atPath: outcome.file.string), by: \.session)
            for (record, performed) in zip(outcome.sessions, sensor.performedTakes) {
                let start = performed.performance.sessionStart
                let truth = (performed.motion.lowerBound - start)...(performed.motion.upperBound - start)
                let prompt = (performed.performance.go - start)...(performed.performance.stop - start)
                errors.prompted += [
                    abs(prompt.lowerBound - truth.lowerBound), abs(prompt.upperBound - truth.upperBound),
                ]
                guard case .motion(let found) = MotionAlignment().align(rows[record.id] ?? [], prompt: prompt) else {
                    errors.missed += 1
                    continue
                }
                errors.aligned += [abs(found.lowerBound - truth.lowerBound), abs(found.upperBound - truth.upperBound)]
            }
        }
        return errors
    }
}
