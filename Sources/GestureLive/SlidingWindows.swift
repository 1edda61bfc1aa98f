/// The last `window` samples of a stream, always contiguous in memory, and which of the
/// `window / offset` overlapping prediction windows completes with each sample.
///
/// Each sample is written twice, at its place in a ring of `window` samples and `window` places
/// later, so that the newest `window` samples always sit side by side; a window costs no copy.
public struct SlidingWindows: Sendable {
    public let window: Int
    public let offset: Int
    public let featureCount: Int
    private var storage: [Float]
    /// Where the next sample goes in the ring, and how many samples came since the last reset.
    private var next = 0
    public private(set) var count = 0

    /// - Precondition: `window` is a multiple of `offset`.
    public init(window: Int, offset: Int, featureCount: Int) {
        precondition(window > 0 && offset > 0 && window % offset == 0, "the window must be a multiple of the offset")
        self.window = window
        self.offset = offset
        self.featureCount = featureCount
        storage = [Float](repeating: 0, count: 2 * window * featureCount)
    }

    /// How many windows overlap at any time, each with its own slot.
    public var slotCount: Int { window / offset }

    /// Adds a sample; returns the slot of the window it completes, if it completes one.
    public mutating func append<C: Collection<Float>>(_ sample: C) -> Int? {
        precondition(sample.count == featureCount, "a sample holds \(featureCount) features, not \(sample.count)")
        let first = next * featureCount
        storage.replaceSubrange(first..<first + featureCount, with: sample)
        storage.replaceSubrange(first + window * featureCount..<first + (window + 1) * featureCount, with: sample)
        next = (next + 1) % window
        count += 1
        guard count >= window, (count - window) % offset == 0 else { return nil }
        return (count - window) / offset % slotCount
    }

    /// The newest `window` samples, oldest first, row-major: only meaningful once `count >= window`.
    public var latest: ArraySlice<Float> {
        storage[next * featureCount..<(next + window) * featureCount]
    }
}
