import Foundation
import GestureCommandLine
import GestureCore
import GestureStore

/// The users, gestures and sessions a recordings folder holds, from its catalog and its files; a
/// folder that does not exist holds none, and is never created.
struct RecordedNames {
    var records: [SessionRecord] = []
    var users: [String] = []
    var gestures: [String] = []

    init(folder: RecordingsFolder) {
        if FileManager.default.fileExists(atPath: folder.catalogPath.string) {
            records = (try? Catalog(path: folder.catalogPath.string).sessions()) ?? []
        }
        let files = (try? folder.users()) ?? []
        users = Set((records.map(\.user) + files).map(\.rawValue)).sorted()
        gestures = Set(records.map(\.gesture.rawValue)).sorted()
    }

    /// `name` as the recordings already spell it, if they hold a name that differs from it only in
    /// case, with a warning: so `Ann` does not silently become a second user beside `ann`.
    static func spelled(_ name: String, among names: [String], what: String) -> String {
        guard !names.contains(name), let known = names.first(where: { $0.lowercased() == name.lowercased() }) else {
            return name
        }
        Terminal.warn("\(what) '\(name)' is '\(known)' in the recordings already; using '\(known)'")
        return known
    }
}
