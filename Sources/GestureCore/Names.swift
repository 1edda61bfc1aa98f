/// Why a user ID or gesture name cannot be used.
public struct InvalidName: Error, Equatable, CustomStringConvertible {
    public var description: String
}

/// The person who recorded a session. It names their file, so it holds no path separator, and
/// no hyphen, since a file's user is the part of its name before the first hyphen.
public struct UserID: Hashable, Sendable, Comparable, CustomStringConvertible, RawRepresentable, Codable {
    public let rawValue: String

    public init(_ text: String) throws(InvalidName) {
        try requirePlainName(text, what: "user ID")
        if text.contains("-") {
            throw InvalidName(
                description:
                    "user ID '\(text)' contains '-': a recording file's user is the part of its name before the first hyphen"
            )
        }
        rawValue = text
    }

    /// The ID, if `rawValue` is a valid one.
    public init?(rawValue: String) { try? self.init(rawValue) }

    /// The user a recording file belongs to: the part of its name before the first hyphen.
    public init(fileName: String) throws(InvalidName) {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        try self.init(String(base.prefix { $0 != "-" && $0 != "." }))
    }

    public var description: String { rawValue }
    public static func < (a: UserID, b: UserID) -> Bool { a.rawValue < b.rawValue }
}

/// What a sample shows: `rest`, or the gesture being performed.
public struct ActivityLabel: Hashable, Sendable, Comparable, CustomStringConvertible, RawRepresentable, Codable {
    public let rawValue: String

    public static let rest = ActivityLabel(unchecked: "rest")
    /// Machine Learning by Tutorials' three gestures.
    public static let drive = ActivityLabel(unchecked: "drive")
    public static let shake = ActivityLabel(unchecked: "shake")
    public static let chop = ActivityLabel(unchecked: "chop")
    /// Everyday motion recorded as background (`record --continuous --as other`): never a gesture,
    /// never detected; a model trained on it learns what not to fire on.
    public static let other = ActivityLabel(unchecked: "other")

    public init(_ text: String) throws(InvalidName) {
        try requirePlainName(text, what: "gesture")
        rawValue = text
    }

    /// The label, if `rawValue` is a valid one.
    public init?(rawValue: String) { try? self.init(rawValue) }

    private init(unchecked text: String) { rawValue = text }

    public var isRest: Bool { self == .rest }
    /// Rest or everyday motion: a label no detection is for.
    public var isBackground: Bool { self == .rest || self == .other }
    public var description: String { rawValue }
    public static func < (a: ActivityLabel, b: ActivityLabel) -> Bool { a.rawValue < b.rawValue }
}

private func requirePlainName(_ text: String, what: String) throws(InvalidName) {
    if text.isEmpty {
        throw InvalidName(description: "\(what) is empty")
    }
    if let bad = text.first(where: {
        $0 == "/" || $0 == "\\" || $0 == "," || $0 == "\"" || $0.isNewline || $0.isWhitespace
            || $0.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }) {
        let shown = bad.isWhitespace ? "whitespace" : "'\(String(bad).quoted())'"
        throw InvalidName(description: "\(what) '\(text.quoted())' contains \(shown); use letters, digits, '_' or '.'")
    }
    if text == "." || text == ".." {
        throw InvalidName(description: "\(what) '\(text)' is not a name")
    }
}
