/// How sessions are cut for the model, as Turi Create's activity classifier cuts them: into
/// prediction windows of `window` samples, and those into chunks of `windowsPerChunk` windows, the
/// sequence the LSTM runs over.
public struct Windowing: Sendable, Equatable {
    public var window: Int
    public var windowsPerChunk: Int

    public init(window: Int, windowsPerChunk: Int = 20) {
        precondition(window > 0 && windowsPerChunk > 0)
        self.window = window
        self.windowsPerChunk = windowsPerChunk
    }

    /// A session's windows; the last one may be short, its missing samples are zeros.
    public func windowCount(samples: Int) -> Int {
        (samples + window - 1) / window
    }

    public func chunkCount(samples: Int) -> Int {
        (windowCount(samples: samples) + windowsPerChunk - 1) / windowsPerChunk
    }

    /// Each window's label: the most frequent label of its samples, a tie going to the lowest class.
    public func windowLabels(_ labels: [Int], classCount: Int) -> [Int] {
        stride(from: 0, to: labels.count, by: window).map { start in
            majorityClass(labels[start..<min(start + window, labels.count)], classCount: classCount)
        }
    }
}

/// Sessions cut into chunks of windows, normalized, ready to be gathered into batches.
struct ChunkSet {
    let windowing: Windowing
    /// Values in one window: `window × featureCount`.
    let windowSize: Int
    /// `chunkCount × windowsPerChunk × windowSize`, padding zero.
    private(set) var inputs: [Float] = []
    /// `chunkCount × windowsPerChunk`; padded windows have label 0 and weight 0.
    private(set) var labels: [Int] = []
    private(set) var lossWeights: [Float] = []
    /// Which sequence each chunk comes from; a sequence's chunks are consecutive and in order.
    private(set) var sequenceOfChunk: [Int] = []
    /// Each chunk's real windows, those before its padding.
    private(set) var lengths: [Int] = []

    init(
        _ sequences: [LabeledSequence], windowing: Windowing, classCount: Int,
        normalization: FeatureNormalization
    ) {
        self.windowing = windowing
        windowSize = windowing.window * normalization.featureCount
        let chunkSamples = windowing.window * windowing.windowsPerChunk
        for (sequenceIndex, sequence) in sequences.enumerated() {
            let windowLabels = windowing.windowLabels(sequence.labels, classCount: classCount)
            let chunks = windowing.chunkCount(samples: sequence.sampleCount)
            let paddedWindows = chunks * windowing.windowsPerChunk
            let start = inputs.count
            inputs += sequence.features
            inputs += repeatElement(0, count: chunks * chunkSamples * sequence.featureCount - sequence.features.count)
            inputs[start...].withUnsafeMutableBufferPointer { buffer in
                normalization.apply(to: UnsafeMutableBufferPointer(rebasing: buffer[..<sequence.features.count]))
            }
            labels += windowLabels + repeatElement(0, count: paddedWindows - windowLabels.count)
            lossWeights += repeatElement(1, count: windowLabels.count)
            lossWeights += repeatElement(0, count: paddedWindows - windowLabels.count)
            sequenceOfChunk += repeatElement(sequenceIndex, count: chunks)
            lengths += (0..<chunks).map {
                min(windowing.windowsPerChunk, windowLabels.count - $0 * windowing.windowsPerChunk)
            }
        }
    }

    var chunkCount: Int { sequenceOfChunk.count }
    var windowsPerChunk: Int { windowing.windowsPerChunk }
}
