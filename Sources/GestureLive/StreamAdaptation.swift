import GestureCore
import GestureLearning

/// Adapts a live model to the person it listens to: the stream's consecutive windows that the
/// model's rejection accepts are kept (the latest `capacity`), and after every `every` of them
/// batch norm's statistics are re-estimated on those kept (`GestureModel.adaptingNormalization`),
/// from the model it started with. A window the rejection finds unknown is never kept.
/// Pure logic: it counts windows, not time.
public struct StreamAdaptation {
    public let base: GestureModel
    /// Accepted windows between re-estimates.
    public let every: Int
    /// The most windows kept: the latest.
    public let capacity: Int
    /// How many windows were accepted, how many found unknown, and how many re-estimates made.
    public private(set) var accepted = 0
    public private(set) var unknown = 0
    public private(set) var adaptations = 0
    /// Runs of consecutive kept windows, each `windows × window × features` values.
    private var runs: [[Float]] = []
    private var kept = 0
    /// Whether the window before was kept, so that the next one continues its run.
    private var continuing = false

    /// Re-estimates after every `seconds` of accepted motion, on the latest `keeping` seconds of it.
    public init(base: GestureModel, every seconds: Double, keeping: Double) throws(LiveError) {
        guard base.neighbours == nil else {
            throw LiveError(
                "the model is personalised by k nearest neighbours, which keep the trained statistics; adapt the model it was made from"
            )
        }
        let windows = { (seconds: Double) in
            max(Int((seconds * base.samplingRate / Double(base.windowing.window)).rounded()), 1)
        }
        self.base = base
        every = windows(seconds)
        capacity = max(windows(keeping), every)
    }

    /// Seconds of motion `windows` windows hold.
    public func seconds(_ windows: Int) -> Double {
        Double(windows * base.windowing.window) / base.samplingRate
    }

    /// Takes in the stream's next window (`window × features` raw values; windows follow one
    /// another without overlap) and whether the rejection found it unknown; returns the adapted
    /// model when this window completes `every` more accepted ones.
    public mutating func add(_ window: [Float], isUnknown: Bool) -> GestureModel? {
        guard !isUnknown else {
            unknown += 1
            continuing = false
            return nil
        }
        if continuing { runs[runs.count - 1] += window } else { runs.append(window) }
        continuing = true
        accepted += 1
        kept += 1
        if kept > capacity {
            runs[0].removeFirst(window.count)
            if runs[0].isEmpty { runs.removeFirst() }
            kept -= 1
        }
        guard accepted % every == 0 else { return nil }
        adaptations += 1
        return try? base.adaptingNormalization(to: sequences)
    }

    /// The kept runs as unlabeled sequences.
    private var sequences: [LabeledSequence] {
        let features = base.featureNames.count
        return runs.enumerated().map { index, run in
            LabeledSequence(
                session: SessionID(start: "live", take: index + 1), user: Self.listener, featureCount: features,
                features: run, labels: Array(repeating: 0, count: run.count / features))
        }
    }

    // A plain name, which UserID always accepts.
    private static let listener = try! UserID("listener")
}
