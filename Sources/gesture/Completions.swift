import ArgumentParser
import Foundation
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

/// What the shell offers for users, gestures and sessions: read from the catalog and the files of
/// the recordings folder the command line names so far (`--recordings`, else `recordings`). A
/// folder that does not exist offers nothing, and is never created.
enum Completions {
    static let users = CompletionKind.custom { words, _, _ in
        let folder = recordingsFolder(in: words)
        let files = folder.csvFiles(in: folder.root).compactMap { try? UserID(fileName: $0.lastComponent!.string) }
        return Set((records(in: folder).map(\.user) + files).map(\.rawValue)).sorted()
    }

    static let gestures = CompletionKind.custom { words, _, _ in
        let recorded = records(in: recordingsFolder(in: words)).map(\.gesture)
        return Set((recorded + [.shake, .chop, .drive]).map(\.rawValue)).sorted()
    }

    static let sessions = sessions { _ in true }
    static let keptSessions = sessions { $0.status != .discarded }
    static let discardedSessions = sessions { $0.status == .discarded }

    private static func sessions(_ isIncluded: @escaping @Sendable (SessionRecord) -> Bool) -> CompletionKind {
        .custom { words, _, _ in records(in: recordingsFolder(in: words)).filter(isIncluded).map(\.id.rawValue) }
    }

    private static func recordingsFolder(in words: [String]) -> RecordingsFolder {
        let given = words.firstIndex(of: "--recordings").flatMap {
            words.indices.contains($0 + 1) ? words[$0 + 1] : nil
        }
        return RecordingsFolder(FilePath(given ?? "recordings"))
    }

    private static func records(in folder: RecordingsFolder) -> [SessionRecord] {
        guard FileManager.default.fileExists(atPath: folder.catalogPath.string) else { return [] }
        return (try? Catalog(path: folder.catalogPath.string).sessions()) ?? []
    }
}
