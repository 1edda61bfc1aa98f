import GestureCore
import Testing

@testable import GestureRecording

@Suite struct CompanionTrackTests {
    /// A phone's readings come at its own times: the row gets the reading on the line between the
    /// two around its time, and the nearer one outside them.
    @Test func aCompanionsReadingIsTheOneOnTheLineAtTheRowsTime() {
        let first = RawSample(time: 1, acceleration: Vector3(0, 0, 1), rotationRate: Vector3(0, 0, 0))
        let second = RawSample(time: 1.02, acceleration: Vector3(0.2, 0, 1), rotationRate: Vector3(0, 0.4, -2))
        let between = CompanionTrack.interpolated(first, second, at: 1.005)
        #expect(between.time == 1.005)
        #expect(abs(between.acceleration.x - 0.05) < 1e-12 && between.acceleration.z == 1)
        #expect(abs(between.rotationRate.y - 0.1) < 1e-12 && abs(between.rotationRate.z + 0.5) < 1e-12)
        #expect(CompanionTrack.interpolated(first, second, at: 3).acceleration == second.acceleration)
        #expect(CompanionTrack.interpolated(first, second, at: 0).rotationRate == first.rotationRate)
        #expect(CompanionTrack.interpolated(second, second, at: 0).rotationRate == second.rotationRate)
    }
}
