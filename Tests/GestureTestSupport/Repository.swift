import Foundation

/// The repository the tests were built from.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A file of the repository, by its path from the root.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
