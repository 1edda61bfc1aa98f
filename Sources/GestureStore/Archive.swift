import Foundation
import GestureCore

import struct SystemPackage.FilePath

/// Discards sessions and restores them without losing a row: a discarded session's lines move,
/// unchanged, from the user's file to the same-named file in recordings/discarded/, and back.
/// Each file is rewritten whole and renamed into place, the destination before the source, so a
/// crash leaves a session in both files at worst, never in neither; doing it again repairs that.
public struct Archive: Sendable {
    public let folder: RecordingsFolder
    public let catalog: Catalog

    public init(folder: RecordingsFolder) throws(StoreError) {
        self.folder = folder
        catalog = try Catalog(path: folder.catalogPath.string)
    }

    public init(folder: RecordingsFolder, catalog: Catalog) {
        self.folder = folder
        self.catalog = catalog
    }

    /// Moves the sessions' rows out of their users' files and marks them discarded.
    @discardableResult
    public func discard(_ ids: [SessionID], reason: String) throws(StoreError) -> [SessionRecord] {
        try move(ids, to: .discarded, reason: reason)
    }

    /// Puts discarded sessions' rows back at the end of their users' files and marks them kept.
    @discardableResult
    public func restore(_ ids: [SessionID]) throws(StoreError) -> [SessionRecord] {
        try move(ids, to: .kept, reason: nil)
    }

    private func move(
        _ ids: [SessionID], to status: SessionStatus, reason: String?
    ) throws(StoreError) -> [SessionRecord] {
        let records = try catalog.sessions(SessionFilter(ids: ids))
        let unknown = Set(ids).subtracting(records.map(\.id))
        guard unknown.isEmpty else {
            throw StoreError("the catalog has no session \(unknown.sorted().map(\.rawValue).joined(separator: ", "))")
        }
        let moving = records.filter { status == .discarded ? $0.status != .discarded : $0.status == .discarded }
        for (file, sessions) in Dictionary(grouping: moving, by: \.file).sorted(by: { $0.key < $1.key }) {
            let lock = try UserLock(user: sessions[0].user, in: folder, wait: true)
            let source = folder.absolute(file)
            let discarded = folder.discardedFile(for: source)
            let ids = Set(sessions.map(\.id))
            if status == .discarded {
                try moveLines(of: ids, from: source, to: discarded)
            } else {
                try moveLines(of: ids, from: discarded, to: source)
            }
            try catalog.setStatus(status, reason: reason, of: sessions.map(\.id))
            withExtendedLifetime(lock) {}
        }
        return try catalog.sessions(SessionFilter(ids: ids))
    }

    /// Moves every line of the given sessions from one file to the other, header kept on both.
    private func moveLines(of ids: Set<SessionID>, from source: FilePath, to destination: FilePath) throws(StoreError) {
        let from = try RecordingLines(path: source)
        let to = try RecordingLines(path: destination)
        let moved = from.body.filter { ids.contains(RecordingLines.sessionID(of: $0)) }
        let kept = to.body.filter { !ids.contains(RecordingLines.sessionID(of: $0)) }
        if !moved.isEmpty || to.body.count != kept.count {
            try FileManager.default.createDirectoryIfNeeded(destination.removingLastComponent())
            try replaceContents(of: destination, with: RecordingLines.text(kept + moved))
        }
        try replaceContents(
            of: source, with: RecordingLines.text(from.body.filter { !ids.contains(RecordingLines.sessionID(of: $0)) }))
    }
}

/// A recording file as lines of text, so that rows move between files exactly as written.
struct RecordingLines {
    var body: [Substring]

    init(path: FilePath) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path.string) else {
            body = []
            return
        }
        let text: String
        do {
            text = try String(contentsOfFile: path.string, encoding: .utf8)
        } catch {
            throw StoreError("cannot read \(path): \(RecordingsFolder.reason(error))")
        }
        var lines = text.split(separator: "\n")
        if lines.first == Substring(RecordingCSV.header) { lines.removeFirst() }
        body = lines
    }

    static func sessionID(of line: Substring) -> SessionID {
        SessionID(rawValue: String(line.prefix { $0 != "," }))
    }

    static func text(_ body: [Substring]) -> String {
        ([Substring(RecordingCSV.header)] + body).joined(separator: "\n") + "\n"
    }
}

extension FileManager {
    func createDirectoryIfNeeded(_ path: FilePath) throws(StoreError) {
        do {
            try createDirectory(atPath: path.string, withIntermediateDirectories: true)
        } catch {
            throw StoreError("cannot create \(path): \(RecordingsFolder.reason(error))")
        }
    }
}
