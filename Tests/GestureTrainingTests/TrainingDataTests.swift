import GestureAnalysis
import GestureCore
import GestureLearning
import GestureTestSupport
import Testing

@testable import GestureTraining

@Suite struct TrainingDataTests {
    /// The copies are made a session at a time, each session followed by its own: the same
    /// sequences as when every copy is made first and then turned into features.
    @Test func eachSessionIsFollowedByItsCopiesMadeAsItsTurnComes() throws {
        let dataset = Dataset(sessions: try syntheticDataset())
        let plan = AugmentationPlan([.mirror, .rotate, .warp], seed: 4)
        let features = try TrainingRecipe.featuresWithGravity.map { try Feature(named: $0) }
        let data = try TrainingData(dataset: dataset, augmentedBy: plan, features: features)
        var copier = SessionCopier(plan)
        let copies = dataset.sessions.flatMap { copier.withCopies(of: $0) }
        #expect(data.sequences.count == 4 * dataset.sessions.count)
        #expect(data.sequences.map(\.session) == copies.map(\.id))
        #expect(data.sequences.map(\.copyOf) == copies.map(\.copyOf))
        #expect(data.sequences == (try TrainingData(dataset: Dataset(sessions: copies), features: features)).sequences)
        #expect(data.rate == dataset.sessions[0].nominalRate && data.classNames.contains("wave"))
    }
}
