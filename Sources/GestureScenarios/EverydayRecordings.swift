import Foundation
import GestureCore
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore

/// Each person's simulated everyday motion recorded as background, as `gesture record --device sim
/// --continuous --as other --sim-everyday all --fast` records it: what a model learns not to fire on.
public struct EverydayRecordings: Sendable {
    public var users: [UserID]
    public var minutes: Double
    public var seed: UInt64
    public var rate: Double

    public init(users: [UserID], minutes: Double, seed: UInt64, rate: Double) {
        self.users = users
        self.minutes = minutes
        self.seed = seed
        self.rate = rate
    }

    /// Records one continuous session labeled `other` for every user into `folder`.
    public func record(into folder: RecordingsFolder) async throws {
        var date = Date(timeIntervalSince1970: 1_900_000_000)
        for user in users {
            let plan = try SessionPlan.continuous(user: user, label: .other, seconds: minutes * 60)
            let sensor = SimulatedSensor(seed: seed, holder: user, everyday: EverydayMotion.allCases)
            _ = try await recordQuietly(plan, sensor: sensor, rate: rate, folder: folder, date: date)
            date += plan.duration + 60
        }
    }
}

/// Runs `plan` on `sensor` in simulated time, its prompts unspoken.
func recordQuietly(
    _ plan: SessionPlan, sensor: any MotionSensor, rate: Double, folder: RecordingsFolder, date: Date
) async throws -> RecordingOutcome {
    let recorder = try SessionRecorder(plan: plan, sensor: sensor, clock: ManualClock(), rate: rate, folder: folder)
    let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
    let outcome = await recorder.run(speech: speech, startDate: date)
    await speech.finish()
    return outcome
}
