/// The users or the gestures the recordings hold already, each with its number of sessions: what a
/// name typed for a new recording is checked against, so that a slip does not start a second user
/// or gesture beside the one meant.
public struct KnownNames: Sendable, Equatable, Codable {
    public struct Name: Sendable, Equatable, Codable {
        public var name: String
        public var sessions: Int

        public init(name: String, sessions: Int) {
            self.name = name
            self.sessions = sessions
        }
    }

    /// Sorted by name.
    public var names: [Name]

    /// - Parameters:
    ///   - sessions: each session's name, once per session.
    ///   - others: names held without a session (a user's file the catalog does not list).
    public init(sessions: some Sequence<String>, others: some Sequence<String> = [String]()) {
        var counts: [String: Int] = [:]
        for name in sessions { counts[name, default: 0] += 1 }
        for name in others where counts[name] == nil { counts[name] = 0 }
        names = counts.map { Name(name: $0.key, sessions: $0.value) }.sorted { $0.name < $1.name }
    }

    /// How `typed` stands to the names held: one of them, one of them in other letter case, close
    /// to one (at most 1 character off for a name of 4 or 5, 2 for a longer one), or new.
    public func spelling(of typed: String) -> NameSpelling {
        guard !names.contains(where: { $0.name == typed }) else { return .known }
        if let same = names.first(where: { $0.name.lowercased() == typed.lowercased() }) {
            return .recased(same.name)
        }
        guard typed.count >= 4 else { return .new }
        let allowed = typed.count < 6 ? 1 : 2
        let near = names.map { ($0, typed.lowercased().editDistance(to: $0.name.lowercased())) }
            .filter { $0.1 <= allowed }
            .min { ($0.1, -$0.0.sessions, $0.0.name) < ($1.1, -$1.0.sessions, $1.0.name) }
        return near.map { .near($0.0) } ?? .new
    }
}

/// How a name typed for a new recording stands to the names the recordings hold already.
public enum NameSpelling: Sendable, Equatable {
    case known
    /// Differs from a name held only in letter case: recorded under that name.
    case recased(String)
    /// Close to a name held: recorded as typed, with a warning, since it may be a slip.
    case near(KnownNames.Name)
    case new

    /// The name a recording of `typed` is made under.
    public func recorded(_ typed: String) -> String {
        if case .recased(let held) = self { return held }
        return typed
    }

    /// The one line warning of a recased or near name, `what` being "user" or "gesture".
    public func warning(about typed: String, what: String) -> String? {
        switch self {
        case .known, .new: nil
        case .recased(let held): "\(what) '\(typed)' is '\(held)' in the recordings already; using '\(held)'"
        case .near(let held):
            "\(what) '\(typed)' is new; did you mean '\(held.name)' (\(held.sessions.counting("session")))?"
        }
    }
}
