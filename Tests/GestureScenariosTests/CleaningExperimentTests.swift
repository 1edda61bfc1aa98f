import Foundation
import GestureAnalysis
import GestureArchive
import GestureCore
import GestureRecording
import GestureScenarios
import GestureSimulation
import GestureStore
import GestureTestSupport
import Testing

@Suite struct CleaningExperimentTests {
    @Test func applyDiscardsThroughTheCatalogAndRestoreUndoesIt() async throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.recordings
        let scenario = FaultyRecordings(users: [try UserID("ann")], gestures: [.shake], takes: 4, faultRate: 0)
        _ = try await scenario.record(into: folder)
        let flipped = try await recordUpsideDownTake(of: "ann", into: folder)

        let dataset = try DatasetLoader(folder: folder).load()
        let bad = Cleaner().badSessions(in: dataset)
        #expect(bad.map(\.session) == [flipped])
        #expect(bad.first?.findings.map(\.kind) == [.orientation])

        let archive = try Archive(folder: folder)
        #expect(try Cleaner().discard(bad, archive: archive).isEmpty)
        #expect(try archive.catalog.sessions(SessionFilter(ids: [flipped])).first?.status == .discarded)
        #expect(try DatasetLoader(folder: folder).load().session(flipped) == nil)
        #expect(
            try DatasetLoader(folder: folder, includeDiscarded: true).load().session(flipped)?
                .discarded == true)
        try archive.restore([flipped])
        #expect(try DatasetLoader(folder: folder).load().sessions.count == dataset.sessions.count)
        #expect(try archive.check().isConsistent)
    }

    /// Records one upside-down take; the recorder, and with it the user's lock, is gone on return.
    private func recordUpsideDownTake(of user: String, into folder: RecordingsFolder) async throws -> SessionID {
        let plan = try SessionPlan(user: UserID(user), gesture: .shake, takes: 1)
        let outcome = try await recordFast(
            plan, in: folder, faults: SimulatedFaults("upside-down"),
            date: Date(timeIntervalSince1970: 1_900_000_000))
        return outcome.sessions[0].id
    }

    @Test func findsInjectedFaultsWithPrecisionAndRecallOfAtLeastNinetyPercent() async throws {
        let temporary = try TemporaryFolder()
        let scenario = FaultyRecordings(
            users: try ["u1", "u2", "u3"].map { try UserID($0) }, takes: 4, faultRate: 0.3, seed: 5)
        let truth = try await scenario.record(into: temporary.recordings)
        try #require(truth.count >= 4)
        let score = CleaningScore(
            found: Cleaner().badSessions(in: try DatasetLoader(folder: temporary.recordings).load()), truth: truth)
        #expect(score.precision >= 0.9)
        #expect(score.recall >= 0.9)
    }
}
