import CLearningKernels
import GestureMotion
import Glibc

/// MiniRocket's features (Dempster, Schmidt and Webb, 2021) in a streaming form. Each kernel has
/// nine taps, spread `dilation` samples apart, weighted −1 but for three weighted 2; it slides over
/// the sum of a few of the (normalized) features. A window's feature for one of the kernel's biases
/// is the share of the kernel's outputs over the last `history` samples that lie above the bias.
/// Nothing is learned but the biases, quantiles of the outputs on the training data.
public struct RandomConvolutions: Sendable, Equatable {
    public struct Kernel: Sendable, Equatable {
        /// The three of the nine taps weighted 2.
        public internal(set) var heavyTaps: [Int]
        public internal(set) var dilation: Int
        /// The features summed before convolving.
        public internal(set) var channels: [Int]
        public internal(set) var biases: [Float]

        /// Samples one output spans.
        var span: Int { 8 * dilation + 1 }
    }

    /// Samples a window's features look back over, the window's own included.
    public let history: Int
    /// The span of a kernel of dilation 1.
    public static let leastHistory = 9
    public let channelCount: Int
    public let kernels: [Kernel]

    /// The 84 ways to choose three taps of nine.
    static let heavyTapChoices: [[Int]] = (0..<9).flatMap { a in
        (a + 1..<9).flatMap { b in (b + 1..<9).map { [a, b, $0] } }
    }

    /// Kernels for `history` samples of `channelCount` features, about `outputCount` features in
    /// all, their channels and the examples their biases come from drawn with `seed`.
    /// - Parameter examples: normalized training sequences, `channelCount` values a sample (a lazy
    ///   collection spares holding them all: a few are read).
    public init<Examples: RandomAccessCollection<[Float]>>(
        fitting examples: Examples, channelCount: Int, history: Int, outputCount: Int, seed: UInt64
    ) where Examples.Index == Int {
        precondition(history >= Self.leastHistory && channelCount > 0 && !examples.isEmpty)
        self.history = history
        self.channelCount = channelCount
        var random = Xoshiro256(seed: seed)
        let dilations = Self.dilations(history: history)
        let biasCount = max(1, outputCount / (Self.heavyTapChoices.count * dilations.count))
        var quantileIndex = 0
        var kernels: [Kernel] = []
        for dilation in dilations {
            for taps in Self.heavyTapChoices {
                var kernel = Kernel(
                    heavyTaps: taps, dilation: dilation, channels: Self.channels(of: channelCount, using: &random),
                    biases: [])
                let example = Self.stretch(
                    of: examples, channelCount: channelCount, history: history, using: &random)
                let outputs = kernel.outputs(of: example, channelCount: channelCount).sorted()
                kernel.biases = (0..<biasCount).map { _ in
                    quantileIndex += 1
                    let quantile = (Double(quantileIndex) * 0.618_033_988_749_894_9).truncatingRemainder(dividingBy: 1)
                    return outputs.isEmpty ? 0 : outputs[Int(quantile * Double(outputs.count - 1))]
                }
                kernels.append(kernel)
            }
        }
        self.kernels = kernels
    }

    init(history: Int, channelCount: Int, kernels: [Kernel]) {
        self.history = history
        self.channelCount = channelCount
        self.kernels = kernels
    }

    public var outputCount: Int { kernels.reduce(0) { $0 + $1.biases.count } }

    /// Each window's features (`windowCount × outputCount`, row-major) for a normalized sequence:
    /// window w, which ends at sample min((w + 1) · window, samples), looks back `history` samples
    /// (a kernel that does not fit in what it sees yet gives 0).
    public func windowFeatures(of sequence: [Float], window: Int) -> [Float] {
        let samples = sequence.count / channelCount
        let windowCount = Windowing(window: window).windowCount(samples: samples)
        let outputCount = outputCount
        var features = [Float](repeating: 0, count: windowCount * outputCount)
        var column = 0
        let rows = ChannelRows(interleaved: sequence[...], channelCount: channelCount)
        let seenBySpan = Dictionary(
            uniqueKeysWithValues: Set(kernels.map(\.span)).map { span in
                let seen = SeenOutputs(windowCount: windowCount) { windowIndex in
                    let end = min((windowIndex + 1) * window, samples)
                    let last = max(0, end - span + 1)
                    return min(max(0, end - history), last)..<last
                }
                return (span, seen)
            })
        for kernel in kernels {
            let outputs = kernel.outputs(of: rows)
            let seen = seenBySpan[kernel.span]!
            var positives = [Int32](repeating: 0, count: seen.marks.count)
            for bias in kernel.biases {
                gl_count_above(outputs, bias, seen.marks, Int32(seen.marks.count), &positives)
                for (windowIndex, range) in seen.ranges.enumerated() where !range.positions.isEmpty {
                    features[windowIndex * outputCount + column] =
                        Float(positives[range.upperMark] - positives[range.lowerMark]) / Float(range.positions.count)
                }
                column += 1
            }
        }
        return features
    }

    /// `windowFeatures` of each of `sequences`' features normalized by `normalization`, one after
    /// another, the sequences shared among `team`'s threads. Each is normalized when its turn
    /// comes, so that the normalized copies are never all held at once.
    func windowFeatures(
        of sequences: [LabeledSequence], normalizedBy normalization: FeatureNormalization, window: Int,
        team: ThreadTeam?
    ) -> [Float] {
        let windowing = Windowing(window: window)
        let windowCounts = sequences.map { windowing.windowCount(samples: $0.features.count / channelCount) }
        let firstWindows = windowCounts.reduce(into: [0]) { $0.append($0.last! + $1) }
        let width = outputCount
        let work = sequences.reduce(0) { $0 + $1.features.count } * kernels.count
        var features = [Float](repeating: 0, count: firstWindows.last! * width)
        features.withUnsafeMutableBufferPointer { features in
            ThreadTeam.split(team, work: work, sequences.count) { range in
                for index in range {
                    let own = windowFeatures(of: normalization.applied(to: sequences[index].features), window: window)
                    (features.baseAddress! + firstWindows[index] * width).update(from: own, count: own.count)
                }
            }
        }
        return features
    }

    /// Exponentially spaced dilations, up to eight, the largest one's span filling the history.
    static func dilations(history: Int) -> [Int] {
        let largest = log2(Double(history - 1) / 8)
        guard largest >= 1 else { return [1] }
        let count = min(8, Int(largest) + 1)
        let spaced = (0..<count).map { Int(pow(2, Double($0) * largest / Double(count - 1))) }
        return spaced.reduce(into: []) { unique, dilation in if unique.last != dilation { unique.append(dilation) } }
    }

    /// 1 to 2^log2(min(channels, 9) + 1) − 1 distinct channels, as MiniRocket draws them.
    static func channels(of channelCount: Int, using random: inout Xoshiro256) -> [Int] {
        let most = log2(Double(min(channelCount, 9) + 1))
        let count = min(channelCount, max(1, Int(pow(2, Double(random.unitFloat()) * most))))
        var all = Array(0..<channelCount)
        for index in 0..<count { all.swapAt(index, index + random.index(below: channelCount - index)) }
        return Array(all[..<count]).sorted()
    }

    /// `history` samples of a random example, from a random start (all of it if shorter).
    static func stretch<Examples: RandomAccessCollection<[Float]>>(
        of examples: Examples, channelCount: Int, history: Int, using random: inout Xoshiro256
    ) -> ArraySlice<Float> where Examples.Index == Int {
        let example = examples[examples.startIndex + random.index(below: examples.count)]
        let samples = example.count / channelCount
        guard samples > history else { return example[...] }
        let start = random.index(below: samples - history + 1) * channelCount
        return example[start..<start + history * channelCount]
    }
}

/// The outputs each window sees, as ranges of positions, and the bounds of those ranges merged in
/// ascending order (`marks`), each range's bounds given as indices into them.
struct SeenOutputs {
    let marks: [Int]
    let ranges: [(positions: Range<Int>, lowerMark: Int, upperMark: Int)]

    /// `range(w)`'s bounds never decrease as `w` grows.
    init(windowCount: Int, range: (Int) -> Range<Int>) {
        let positions = (0..<windowCount).map(range)
        var marks: [Int] = []
        marks.reserveCapacity(2 * windowCount)
        var lowerMarks: [Int] = [], upperMarks: [Int] = []
        var lower = 0, upper = 0
        while upper < positions.count {
            if lower < positions.count && positions[lower].lowerBound <= positions[upper].upperBound {
                lowerMarks.append(marks.count)
                marks.append(positions[lower].lowerBound)
                lower += 1
            } else {
                upperMarks.append(marks.count)
                marks.append(positions[upper].upperBound)
                upper += 1
            }
        }
        self.marks = marks
        ranges = positions.indices.map { (positions[$0], lowerMarks[$0], upperMarks[$0]) }
    }
}

/// A sequence's values channel by channel: each channel's samples in a row of their own, so that
/// a kernel reads its channels in order rather than one value in every `channelCount`.
struct ChannelRows {
    let samples: Int
    let values: [Float]

    init(interleaved sequence: ArraySlice<Float>, channelCount: Int) {
        let samples = sequence.count / channelCount
        self.samples = samples
        values = [Float](unsafeUninitializedCapacity: samples * channelCount) { rows, count in
            sequence.withUnsafeBufferPointer { sequence in
                for sample in 0..<samples {
                    for channel in 0..<channelCount {
                        rows[channel * samples + sample] = sequence[sample * channelCount + channel]
                    }
                }
            }
            count = samples * channelCount
        }
    }
}

extension RandomConvolutions.Kernel {
    /// The output at every position the kernel fits in whole: output t spans samples t … t + 8·dilation.
    func outputs(of sequence: ArraySlice<Float>, channelCount: Int) -> [Float] {
        outputs(of: ChannelRows(interleaved: sequence, channelCount: channelCount))
    }

    /// `outputs(of:channelCount:)` of a sequence already laid out channel by channel.
    func outputs(of rows: ChannelRows) -> [Float] {
        let samples = rows.samples
        guard samples >= span else { return [] }
        var summed = [Float](repeating: 0, count: samples)
        rows.values.withUnsafeBufferPointer { values in
            summed.withUnsafeMutableBufferPointer { summed in
                for channel in channels {
                    let row = values.baseAddress! + channel * samples
                    for sample in 0..<samples { summed[sample] += row[sample] }
                }
            }
        }
        return [Float](unsafeUninitializedCapacity: samples - span + 1) { outputs, count in
            gl_kernel_outputs(
                summed, Int32(outputs.count), Int32(dilation), Int32(heavyTaps[0]), Int32(heavyTaps[1]),
                Int32(heavyTaps[2]), outputs.baseAddress!)
            count = outputs.count
        }
    }
}
