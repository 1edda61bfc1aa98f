import GestureCore

/// Which sessions of a dataset a command works on. Each filter that is set must match; an empty
/// result says which filter removed the last sessions.
public struct SessionSelection: Sendable {
    public var gestures: [ActivityLabel] = []
    public var users: [UserID] = []
    public var sessions: [SessionID] = []
    /// Sessions named by a manifest, in its order, repeats kept.
    public var manifest: [SessionID]?

    public init(
        gestures: [ActivityLabel] = [], users: [UserID] = [], sessions: [SessionID] = [], manifest: [SessionID]? = nil
    ) {
        self.gestures = gestures
        self.users = users
        self.sessions = sessions
        self.manifest = manifest
    }

    public func apply(to dataset: Dataset) throws(AnalysisError) -> Dataset {
        guard !dataset.sessions.isEmpty else {
            throw AnalysisError("no sessions to select from: the recordings hold no rows")
        }
        var selected = dataset.sessions
        if let manifest {
            let byID = Dictionary(selected.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            let missing = manifest.filter { byID[$0] == nil }
            guard missing.isEmpty else {
                throw AnalysisError(
                    "the manifest names \(missing.count.counting("session")) the recordings do not hold, e.g. \(missing[0]) (discarded?)",
                    remedy: .includeDiscarded)
            }
            selected = manifest.map { byID[$0]! }
        }
        try narrow(&selected, to: Set(gestures), \.gesture, what: "gesture")
        try narrow(&selected, to: Set(users), \.user, what: "user")
        try narrow(&selected, to: Set(sessions), \.id, what: "session")
        return Dataset(sessions: selected)
    }

    private func narrow<Key: Hashable & CustomStringConvertible>(
        _ selected: inout [RecordedSession], to wanted: Set<Key>, _ key: KeyPath<RecordedSession, Key>, what: String
    ) throws(AnalysisError) {
        guard !wanted.isEmpty else { return }
        let kept = selected.filter { wanted.contains($0[keyPath: key]) }
        guard !kept.isEmpty else {
            let there = Set(selected.map { $0[keyPath: key].description }).sorted()
            throw AnalysisError(
                "no session left: --\(what) \(wanted.map(\.description).sorted().joined(separator: ",")) matches none of the \(selected.count) sessions selected so far; they have \(what) \(there.prefix(12).joined(separator: ", "))\(there.count > 12 ? ", …" : "")"
            )
        }
        selected = kept
    }
}
