import Foundation
import GestureCore
import GestureStore

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
    /// The longest line that moves between files; a longer one is left for the user to move.
    public var longestLineToMove = Self.defaultLongestLineToMove
    public static let defaultLongestLineToMove = 1 << 28

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
    func sessions(_ ids: [SessionID]) throws(StoreError) -> [SessionRecord] {
        let records = try catalog.sessions(SessionFilter(ids: ids))
        let unknown = Set(ids).subtracting(records.map(\.id))
        guard unknown.isEmpty else {
            throw StoreError(
                "the catalog has no session \(unknown.sorted().map(\.rawValue).joined(separator: ", "))",
                badRequest: true)
        }
        return records
    }

    /// Puts each session's rows in the file they belong in: discarded/ when the session is discarded
    /// or the row is trimmed off, else the user's own; the caller holds the users' locks. Rows are
    /// added to the file they belong in (those not in it already) before they are taken out of the
    /// other, so every row is in one file at least. Rows that come back join their session's rows
    /// in time order, the session at the end of the file. Each file is streamed a block at a time:
    /// what is held is the lines of a move that was cut short, to add none of them twice.
    func placeRows(of records: [SessionRecord]) throws(StoreError) {
        for (file, sessions) in Dictionary(grouping: records, by: \.file).sorted(by: { $0.key < $1.key }) {
            let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0.id, $0) })
            let ids = Set(byID.keys)
            let keeps = { (row: RecordingRow) in byID[row.session]!.keepsRow(at: row.timestamp) }
            let leaves = { (row: RecordingRow) in !keeps(row) }
            let (livePath, discardedPath) = (folder.absolute(file), folder.discardedFile(for: folder.absolute(file)))
            // A file made anew starts as its counterpart does: a companion's columns stay named.
            var header = try RecordingLines(path: livePath).headerLine()
            if header == nil { header = try RecordingLines(path: discardedPath).headerLine() }
            let live = RecordingLines(
                path: livePath, header: header ?? RecordingCSV.header, longestLine: longestLineToMove)
            let discarded = RecordingLines(
                path: discardedPath, header: header ?? RecordingCSV.header, longestLine: longestLineToMove)
            let leaving = try live.count(rowsOf: ids, where: leaves) > 0
            let returning = try returningSessions(ids, from: discarded, where: keeps)
            if leaving {
                try FileManager.default.createDirectoryIfNeeded(folder.discardedFolder)
                let present = try discarded.lines(ofRowsOf: ids, where: leaves)
                try discarded.rewrite { output throws(StoreError) in
                    try live.copyRows(of: ids, where: leaves, except: present, to: &output)
                }
            }
            if !returning.isEmpty {
                try live.rewrite(removing: returning) { output throws(StoreError) in
                    for session in returning.sorted() {
                        try live.writeMerged(session, with: discarded, where: keeps, to: &output)
                    }
                }
            }
            if leaving { try live.rewrite(removingRowsOf: ids, where: leaves) }
            if !returning.isEmpty { try discarded.rewrite(removingRowsOf: ids, where: keeps) }
        }
    }

    /// The sessions with rows in `discarded` that `keeps` puts back in their own file.
    private func returningSessions(
        _ ids: Set<SessionID>, from discarded: RecordingLines, where keeps: (RecordingRow) -> Bool
    ) throws(StoreError) -> Set<SessionID> {
        var returning = Set<SessionID>()
        try discarded.forEachRow(of: ids, skippingOverlong: true) { _, row in
            if let row, keeps(row) { returning.insert(row.session) }
        }
        return returning
    }
}

extension SessionRecord {
    /// Whether a row at `time` belongs in the session's own file: the session is not discarded,
    /// and the row is not trimmed off.
    func keepsRow(at time: Double) -> Bool { status != .discarded && kept?.contains(time) != false }
}
