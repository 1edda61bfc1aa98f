import Foundation
import GestureCore

/// The users, gestures and sessions a recordings folder holds, from its catalog and its files; a
/// folder that does not exist holds none, and is never created.
public struct RecordedNames: Sendable {
    public var records: [SessionRecord] = []
    public var users = KnownNames(sessions: [])
    public var gestures = KnownNames(sessions: [])

    public init(folder: RecordingsFolder) {
        if FileManager.default.fileExists(atPath: folder.catalogPath.string) {
            records = (try? Catalog(path: folder.catalogPath.string).sessions()) ?? []
        }
        let files = (try? folder.users()) ?? []
        users = KnownNames(sessions: records.map(\.user.rawValue), others: files.map(\.rawValue))
        gestures = KnownNames(sessions: records.map(\.gesture.rawValue))
    }
}
