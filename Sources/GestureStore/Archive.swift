import Foundation
import GestureCore

import struct SystemPackage.FilePath

/// Discards sessions and restores them without losing a row: a discarded session's lines move,
/// unchanged, from the user's file to the same-named file in recordings/discarded/, and back.
///
/// A change holds the users' locks throughout. It commits the new statuses to the catalog first, in
/// one transaction, then brings the files into line with the catalog (`placeRows`): rows are added
/// where they belong before they are removed from where they were, each file rewritten whole and
/// renamed into place. A crash leaves rows in both files at worst, never in neither, and a catalog
/// that says where they belong: repeating the command, or `check` with repair, finishes the move.
public struct Archive: Sendable {
    public let folder: RecordingsFolder
    public let catalog: Catalog
    /// Told what a change waits for before it waits.
    public let waiting: LockWait

    /// Opens an existing recordings folder's archive.
    public init(folder: RecordingsFolder, waiting: LockWait = .saying { _ in }) throws(StoreError) {
        guard folder.rootIsFolder == true else { throw StoreError("no recordings folder at \(folder.root)") }
        self.folder = folder
        self.waiting = waiting
        let say: (@Sendable (String) -> Void)? = if case .saying(let say) = waiting { say } else { nil }
        catalog = try Catalog(path: folder.catalogPath.string, waiting: say)
    }

    /// Moves the sessions' rows out of their users' files and marks them discarded.
    @discardableResult
    public func discard(_ ids: [SessionID], reason: String) throws(StoreError) -> [SessionRecord] {
        try change(ids, activity: "discarding") { record throws(StoreError) in
            record.status == .discarded ? nil : StatusChange(record.id, .discarded, reason: reason)
        }
    }

    /// Puts discarded sessions' rows back at the end of their users' files, with the status they
    /// had before: kept, or incomplete.
    @discardableResult
    public func restore(_ ids: [SessionID]) throws(StoreError) -> [SessionRecord] {
        try change(ids, activity: "restoring") { record throws(StoreError) in
            record.status == .discarded ? try catalog.statusBeforeDiscard(of: record.id) : nil
        }
    }

    private func change(
        _ ids: [SessionID], activity: String, to newStatus: (SessionRecord) throws(StoreError) -> StatusChange?
    ) throws(StoreError) -> [SessionRecord] {
        let users = try sessions(ids).map(\.user)
        let locks = try UserLock.all(users, in: folder, for: activity, wait: waiting)
        defer { withExtendedLifetime(locks) {} }
        var changes: [StatusChange] = []
        for record in try sessions(ids) {
            if let change = try newStatus(record) { changes.append(change) }
        }
        try catalog.setStatus(changes)
        let records = try sessions(ids)
        try placeRows(of: records)
        return records
    }

    /// The catalog's records of exactly these sessions.
    private func sessions(_ ids: [SessionID]) throws(StoreError) -> [SessionRecord] {
        let records = try catalog.sessions(SessionFilter(ids: ids))
        let unknown = Set(ids).subtracting(records.map(\.id))
        guard unknown.isEmpty else {
            throw StoreError("the catalog has no session \(unknown.sorted().map(\.rawValue).joined(separator: ", "))")
        }
        return records
    }

    /// Puts each session's rows in the file its status says, discarded/ or the user's own; the
    /// caller holds the users' locks. Rows are added to the file they belong in (those not in it
    /// already) before they are taken out of the other, so every row is in one file at least.
    func placeRows(of records: [SessionRecord]) throws(StoreError) {
        for (file, sessions) in Dictionary(grouping: records, by: \.file).sorted(by: { $0.key < $1.key }) {
            let live = folder.absolute(file)
            let discarded = folder.discardedFile(for: live)
            let inDiscarded = Set(sessions.filter { $0.status == .discarded }.map(\.id))
            let inLive = Set(sessions.map(\.id)).subtracting(inDiscarded)
            var liveLines = try RecordingLines(path: live)
            var discardedLines = try RecordingLines(path: discarded)
            let toDiscarded = liveLines.lines(of: inDiscarded, missingFrom: discardedLines)
            let toLive = discardedLines.lines(of: inLive, missingFrom: liveLines)
            if !toDiscarded.isEmpty {
                try FileManager.default.createDirectoryIfNeeded(folder.discardedFolder)
                try discardedLines.append(toDiscarded)
            }
            try liveLines.append(toLive)
            try liveLines.remove(inDiscarded)
            try discardedLines.remove(inLive)
        }
    }
}

/// A recording file as lines of text, so that rows move between files exactly as written.
struct RecordingLines {
    let path: FilePath
    /// The lines after the header, or all of them if the file does not start with one.
    private(set) var body: [Substring]
    private var hadHeader = false

    init(path: FilePath) throws(StoreError) {
        self.path = path
        var lines = try Self.lines(of: path)
        if lines.first == Substring(RecordingCSV.header) {
            lines.removeFirst()
            hadHeader = true
        }
        body = lines
    }

    /// A file's lines; none if it does not exist.
    static func lines(of path: FilePath) throws(StoreError) -> [Substring] {
        guard FileManager.default.fileExists(atPath: path.string) else { return [] }
        do {
            return try String(contentsOfFile: path.string, encoding: .utf8).split(separator: "\n")
        } catch {
            throw StoreError("cannot read \(path): \(RecordingsFolder.reason(error))")
        }
    }

    static func sessionID(of line: Substring) -> SessionID {
        SessionID(rawValue: String(line.prefix { $0 != "," }))
    }

    func lines(of sessions: Set<SessionID>) -> [Substring] {
        body.filter { sessions.contains(Self.sessionID(of: $0)) }
    }

    /// The sessions' lines that `other` does not hold.
    func lines(of sessions: Set<SessionID>, missingFrom other: RecordingLines) -> [Substring] {
        let present = Set(other.lines(of: sessions))
        return lines(of: sessions).filter { !present.contains($0) }
    }

    /// The lines with these numbers, counted from 1 at the file's first line.
    func lines(numbered numbers: Set<Int>) -> [Substring] {
        body.indices.filter { numbers.contains(lineNumber(of: $0)) }.map { body[$0] }
    }

    mutating func append(_ lines: [Substring]) throws(StoreError) {
        guard !lines.isEmpty else { return }
        try save(body + lines)
    }

    mutating func remove(_ sessions: Set<SessionID>) throws(StoreError) {
        let kept = body.filter { !sessions.contains(Self.sessionID(of: $0)) }
        guard kept.count < body.count else { return }
        try save(kept)
    }

    mutating func remove(numbered numbers: Set<Int>) throws(StoreError) {
        try save(body.indices.filter { !numbers.contains(lineNumber(of: $0)) }.map { body[$0] })
    }

    /// Writes the file anew, with a header and a newline after every line.
    mutating func save(_ lines: [Substring]) throws(StoreError) {
        try replaceContents(of: path, with: ([Substring(RecordingCSV.header)] + lines).joined(separator: "\n") + "\n")
        body = lines
        hadHeader = true
    }

    private func lineNumber(of index: Int) -> Int { index + (hadHeader ? 2 : 1) }
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
