import GestureCore

/// Something wrong with a session, and why it is thought so.
public struct Finding: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case orientation = "wrong-orientation"
        case wrongGesture = "wrong-gesture"
        case timing = "gaps"
        case nonFinite = "nan"
        case clipping
        case flatLine = "flat-line"
        case tooShort = "too-short"
        case noMotion = "no-motion"
    }

    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}

/// A session with at least one finding.
public struct BadSession: Sendable, Equatable, Codable {
    public var session: SessionID
    public var user: UserID
    public var gesture: ActivityLabel
    public var findings: [Finding]

    /// The findings as one line: `wrong-orientation: …; gaps: …`.
    public var reasons: String {
        findings.map { "\($0.kind.rawValue): \($0.reason)" }.joined(separator: "; ")
    }
}
