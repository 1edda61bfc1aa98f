import FoundationEssentials
import GestureCore

/// Mistakes the simulated sensor can be told to make, so that cleaning and evaluation have
/// something real to find: `--sim-faults wrong-gesture@2,upside-down,dropped@1`.
public struct SimulatedFaults: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The person performs another gesture than the one prompted.
        case wrongGesture = "wrong-gesture"
        /// The device is held upside down for the session.
        case upsideDown = "upside-down"
        /// One accelerometer axis reads zero.
        case deadAxis = "dead-axis"
        /// Bursts of samples never arrive.
        case droppedSamples = "dropped"
    }

    /// Each fault with the takes it applies to; an empty set means every take.
    public private(set) var takes: [Kind: Set<Int>] = [:]

    public static let none = SimulatedFaults()

    public init() {}

    public init(_ spec: String) throws(SensorError) {
        for item in spec.split(separator: ",").map({ $0.trimmed }) where !item.isEmpty {
            let parts = item.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            guard let kind = Kind(rawValue: String(parts[0])) else {
                let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw SensorError(device: "sim", reason: "unknown fault '\(parts[0])'; known faults: \(known)")
            }
            guard parts.count == 2 else {
                takes[kind] = []
                continue
            }
            guard let take = Int(parts[1]), take > 0 else {
                throw SensorError(device: "sim", reason: "fault '\(item)' names take '\(parts[1])', not a take number")
            }
            if takes[kind] != [] { takes[kind, default: []].insert(take) }
        }
    }

    public func contains(_ kind: Kind, take: Int) -> Bool {
        guard let selected = takes[kind] else { return false }
        return selected.isEmpty || selected.contains(take)
    }
}
