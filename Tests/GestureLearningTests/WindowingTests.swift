import GestureCore
import Testing

@testable import GestureLearning

func sequence(
    _ labels: [Int], features: [Float]? = nil, featureCount: Int = 1, session: Int = 0,
    user: String = "ann"
) throws -> LabeledSequence {
    LabeledSequence(
        session: SessionID(start: "test", take: session), user: try UserID(user),
        featureCount: featureCount,
        features: features ?? (0..<labels.count * featureCount).map(Float.init), labels: labels)
}

@Suite struct WindowingTests {
    @Test func windowLabelIsTheMostFrequentSampleLabel() {
        let windowing = Windowing(window: 4)
        #expect(windowing.windowLabels([2, 1, 2, 0, 1, 1, 1, 0], classCount: 3) == [2, 1])
    }

    @Test func tieGoesToTheLowestClass() {
        let windowing = Windowing(window: 4)
        #expect(windowing.windowLabels([2, 1, 1, 2, 3, 0, 0, 3], classCount: 4) == [1, 0])
    }

    @Test func shortLastWindowIsLabeledByItsSamples() {
        let windowing = Windowing(window: 4)
        #expect(windowing.windowCount(samples: 9) == 3)
        #expect(windowing.windowLabels([0, 0, 0, 0, 1, 1, 1, 1, 2], classCount: 3) == [0, 1, 2])
    }

    /// 45 samples, windows of 10, chunks of 2 windows: 5 windows (the last half full), 3 chunks,
    /// the sixth window padding with weight 0, zeros beyond the data.
    @Test func chunksArePaddedWithZeroWeightWindows() throws {
        let windowing = Windowing(window: 10, windowsPerChunk: 2)
        let labels = [Int](repeating: 0, count: 20) + [Int](repeating: 1, count: 25)
        let data = try sequence(labels, features: (0..<45).map { Float($0) + 1 })
        let identity = FeatureNormalization(mean: [0], deviation: [1])
        let chunks = ChunkSet([data], windowing: windowing, classCount: 2, normalization: identity)
        #expect(chunks.chunkCount == 3)
        #expect(chunks.labels == [0, 0, 1, 1, 1, 0])
        #expect(chunks.lossWeights == [1, 1, 1, 1, 1, 0])
        #expect(chunks.inputs.count == 60)
        #expect(Array(chunks.inputs[..<45]) == (0..<45).map { Float($0) + 1 })
        #expect(chunks.inputs[45...].allSatisfy { $0 == 0 })
    }

    @Test func chunksAreNormalizedPerFeature() throws {
        let normalization = FeatureNormalization(mean: [1, 10], deviation: [2, 5])
        let data = try sequence([0, 0], features: [3, 20, 1, 0], featureCount: 2)
        let chunks = ChunkSet(
            [data], windowing: Windowing(window: 2, windowsPerChunk: 1), classCount: 1,
            normalization: normalization)
        #expect(chunks.inputs == [1, 2, 0, -2])
    }

    @Test func normalizationFitsMeanAndDeviation() throws {
        let data = [
            try sequence([0, 0], features: [1, 5, 3, 5], featureCount: 2),
            try sequence([0], features: [2, 5], featureCount: 2),
        ]
        let normalization = FeatureNormalization(fitting: data)
        #expect(normalization.mean == [2, 5])
        #expect(abs(normalization.deviation[0] - (2.0 / 3).squareRoot()) < 1e-6)
        #expect(normalization.deviation[1] == 1, "a constant feature keeps deviation 1")
    }

    /// Batches are packed: time-major, longest chunk first, and a chunk's padding left out.
    @Test func batchesArePackedTimeMajor() throws {
        let windowing = Windowing(window: 1, windowsPerChunk: 3)
        let data = try sequence([0, 1, 0, 1, 0], features: [1, 2, 3, 4, 5])
        let chunks = ChunkSet(
            [data], windowing: windowing, classCount: 2,
            normalization: FeatureNormalization(mean: [0], deviation: [1]))
        #expect(chunks.lengths == [3, 2])
        var architecture = Architecture(windowSize: 1, classes: 2)
        architecture.denseUnits = 1
        let workspace = Workspace(Network(architecture), capacity: 6)
        let (shape, order) = chunks.gather([1, 0], into: workspace)
        #expect(order == [0, 1])
        #expect(shape.active == [2, 2, 1] && shape.offsets == [0, 2, 4] && shape.rows == 5)
        #expect(Array(UnsafeBufferPointer(start: workspace.input, count: 5)) == [1, 4, 2, 5, 3])
        #expect(Array(UnsafeBufferPointer(start: workspace.labels, count: 5)) == [0, 1, 1, 0, 0])
    }
}
