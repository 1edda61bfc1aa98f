import ArgumentParser
import Foundation
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

/// What the shell offers for users, gestures and sessions: the names of the recordings folder the
/// command line names so far (`--recordings`, else `recordings`).
enum Completions {
    static let users = CompletionKind.custom { words, _, _ in names(in: words).users.names.map(\.name) }

    static let gestures = CompletionKind.custom { words, _, _ in
        Set(names(in: words).gestures.names.map(\.name) + ["shake", "chop", "drive"]).sorted()
    }

    static let sessions = sessions { _ in true }
    static let keptSessions = sessions { $0.status != .discarded }
    static let discardedSessions = sessions { $0.status == .discarded }

    private static func sessions(_ isIncluded: @escaping @Sendable (SessionRecord) -> Bool) -> CompletionKind {
        .custom { words, _, _ in names(in: words).records.filter(isIncluded).map(\.id.rawValue) }
    }

    private static func names(in words: [String]) -> RecordedNames {
        let given = words.firstIndex(of: "--recordings").flatMap {
            words.indices.contains($0 + 1) ? words[$0 + 1] : nil
        }
        return RecordedNames(folder: RecordingsFolder(FilePath(given ?? "recordings")))
    }
}
