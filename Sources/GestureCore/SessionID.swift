/// A session's ID as Machine Learning by Tutorials wrote it: `<start time ISO 8601>-<take number>`.
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible, RawRepresentable, Codable {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(start: String, take: Int) {
        rawValue = "\(start)-\(take)"
    }

    /// The take number after the last hyphen, if there is one.
    public var take: Int? {
        rawValue.lastIndex(of: "-").flatMap { Int(rawValue[rawValue.index(after: $0)...]) }
    }

    public var description: String { rawValue }
    public static func < (a: SessionID, b: SessionID) -> Bool { a.rawValue < b.rawValue }
}
