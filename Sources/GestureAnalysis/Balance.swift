import GestureCore
import GestureMotion

/// How unevenly sessions are spread over gestures and users, and a seeded resampling that evens
/// them out: the same number of sessions in every gesture × user cell.
public struct Balance: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        /// Drops sessions from the fuller cells.
        case under
        /// Repeats sessions of the emptier cells, drawn with replacement.
        case over
    }

    public var dataset: Dataset

    public init(_ dataset: Dataset) { self.dataset = dataset }

    /// Sessions per gesture and per user; the ratio of the largest count to the smallest.
    public var byGesture: [(ActivityLabel, Int)] { counts(\.gesture) }
    public var byUser: [(UserID, Int)] { counts(\.user) }

    public static func imbalance<Key>(_ counts: [(Key, Int)]) -> Double {
        let values = counts.map(\.1)
        guard let low = values.min(), let high = values.max(), low > 0 else { return .infinity }
        return Double(high) / Double(low)
    }

    private func counts<Key: Comparable & Hashable>(_ key: KeyPath<RecordedSession, Key>) -> [(Key, Int)] {
        Dictionary(grouping: dataset.sessions, by: { $0[keyPath: key] }).map { ($0.key, $0.value.count) }.sorted {
            $0.0 < $1.0
        }
    }

    /// Session IDs with every gesture × user cell at the same count, in dataset order within a cell.
    /// A user who never recorded a gesture cannot be evened out by sampling: that is an error.
    public func resampled(_ method: Method, seed: UInt64) throws(AnalysisError) -> [SessionID] {
        let cells = Dictionary(grouping: dataset.sessions) { "\($0.gesture)\u{0}\($0.user)" }
        let expected = dataset.gestures.count * dataset.users.count
        guard cells.count == expected else {
            let missing = dataset.gestures.flatMap { g in dataset.users.map { (g, $0) } }
                .filter { cells["\($0.0)\u{0}\($0.1)"] == nil }.map { "\($0.1) has no \($0.0)" }
            throw AnalysisError(
                "cannot balance: \(missing.prefix(5).joined(separator: ", ")); select fewer users or gestures")
        }
        let target = method == .under ? cells.values.map(\.count).min()! : cells.values.map(\.count).max()!
        var random = SeededRandom(seed: seed, "balance")
        var chosen: [SessionID] = []
        for key in cells.keys.sorted() {
            let sessions = cells[key]!
            var picked = Array(sessions.indices.shuffled(using: &random).prefix(target)).sorted()
            while picked.count < target { picked.append(Int.random(in: sessions.indices, using: &random)) }
            chosen += picked.sorted().map { sessions[$0].id }
        }
        return chosen
    }
}
