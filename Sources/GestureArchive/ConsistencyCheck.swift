import Foundation
import GestureCore
import GestureStore

/// What `gesture check` found.
public struct CheckReport: Sendable {
    public var discrepancies: [Discrepancy] = []
    /// Users whose recordings another process is using, left unchecked, with who uses them.
    public var busy: [String] = []
    public var sessionsChecked = 0
    public var rowsChecked = 0

    public var isConsistent: Bool { discrepancies.isEmpty }
}

extension Archive {
    /// Reads every recording file and compares it with the catalog: each kept or incomplete session
    /// must have exactly its sample count of rows in its file and none in discarded/, each discarded
    /// session the reverse, every line must be a row, and every session in a file must be
    /// catalogued. Users whose recordings another process is using are skipped and named.
    public func check() throws(StoreError) -> CheckReport {
        try withEveryUsersLock(for: "checking") { busy throws(StoreError) in
            var report = try compare(try scanFiles(skipping: busy), try catalog.sessions(), busy: busy)
            report.busy = busy.values.sorted()
            return report
        }
    }

    /// Runs `body` holding the locks of every user the catalog or the files name that no other
    /// process is using; those it could not lock are passed to it with why.
    func withEveryUsersLock<T>(
        for activity: String, _ body: (_ busy: [UserID: String]) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        // Nobody changes a folder that cannot be written to; checking it needs no lock.
        guard access(folder.root.string, W_OK) == 0 else { return try body([:]) }
        let names = try folder.users()
        var locks: [UserLock] = []
        var busy: [UserID: String] = [:]
        for user in Set(try catalog.sessions().map(\.user) + names).sorted() {
            do {
                locks.append(try UserLock(user: user, in: folder, for: activity, wait: .never))
            } catch {
                busy[user] = error.description
            }
        }
        defer { withExtendedLifetime(locks) {} }
        return try body(busy)
    }

    func compare(
        _ scans: [String: FileScan], _ records: [SessionRecord], busy: [UserID: String]
    ) throws(StoreError) -> CheckReport {
        var report = CheckReport()
        for scan in scans.values.sorted(by: { $0.file < $1.file }) {
            report.discrepancies += scan.problems
        }
        var catalogued = Set<SessionID>()
        for record in records {
            catalogued.insert(record.id)
            guard busy[record.user] == nil else { continue }
            report.sessionsChecked += 1
            report.discrepancies += compare(record, scans)
            report.rowsChecked += scans[home(of: record)]?.sessions[record.id]?.count ?? 0
        }
        for scan in scans.values.sorted(by: { $0.file < $1.file }) {
            let unknown = scan.sessions.keys.filter { !catalogued.contains($0) }.sorted()
            if !unknown.isEmpty { report.discrepancies.append(.uncatalogued(unknown, file: scan.file)) }
        }
        return report
    }

    private func compare(_ record: SessionRecord, _ scans: [String: FileScan]) -> [Discrepancy] {
        var found: [Discrepancy] = []
        let home = home(of: record)
        let away = record.status == .discarded ? record.file : discardedFile(of: record)
        let kept = { (time: Double) in record.kept?.contains(time) != false }
        let rows = scans[home]?.sessions[record.id]?.times.filter(kept).count ?? 0
        // Rows in the other file, and rows trimmed off that are still in the session's own file.
        let stray =
            (scans[away]?.sessions[record.id]?.times.filter { record.status == .discarded || kept($0) }.count ?? 0)
        let trimmed =
            record.status == .discarded ? 0 : scans[home]?.sessions[record.id]?.times.filter { !kept($0) }.count ?? 0
        if stray > 0 {
            found.append(.misplaced(record.id, status: record.status, rows: stray, file: away))
        } else if trimmed > 0, let kept = record.kept {
            found.append(.untrimmed(record.id, kept: kept, rows: trimmed, file: home))
        } else if record.isBeingRecorded {
            found.append(.unfinished(record.id, rows: rows))
        } else if rows != record.sampleCount {
            found.append(.countDiffers(record.id, catalog: record.sampleCount, found: rows, file: home))
        }
        if let labels = record.labels, let scanned = scans[home]?.sessions[record.id] {
            let differing = zip(scanned.times, scanned.activities).filter { labels.label(at: $0) != $1 }.count
            if differing > 0 { found.append(.labelsDiffer(record.id, rows: differing, file: home)) }
        }
        return found
    }

    /// The file a session's rows live in: its user's, or the discarded one.
    func home(of record: SessionRecord) -> String {
        record.status == .discarded ? discardedFile(of: record) : record.file
    }

    private func discardedFile(of record: SessionRecord) -> String {
        folder.relative(folder.discardedFile(for: folder.absolute(record.file)))
    }

    /// Every recording file, live and discarded, but those of busy users; each leftover temporary file as a scan of its own.
    func scanFiles(skipping busy: [UserID: String]) throws(StoreError) -> [String: FileScan] {
        var scans: [String: FileScan] = [:]
        for folder in [folder.root, folder.discardedFolder] {
            for path in try self.folder.csvFiles(in: folder) {
                if let user = try? UserID(fileName: path.lastComponent!.string), busy[user] != nil { continue }
                let scan = FileScan(path: path, file: self.folder.relative(path), longestLineToMove: longestLineToMove)
                scans[scan.file] = scan
            }
            for path in self.folder.leftovers(in: folder) {
                let file = self.folder.relative(path)
                scans[file] = FileScan(file: file, problems: [.leftover(file: file)])
            }
        }
        return scans
    }
}

extension SessionRecord {
    var isBeingRecorded: Bool { status == .incomplete && reason == Self.recordingReason }
}
