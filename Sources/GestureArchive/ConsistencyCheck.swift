import Foundation
import GestureCore
import GestureMotion
import GestureStore

import struct SystemPackage.FilePath

/// A place where the recordings folder's files and its catalog disagree, or a file is damaged.
public enum Discrepancy: Sendable, Equatable, CustomStringConvertible {
    /// A session's rows are in the file its status does not put them in (as well, or only).
    case misplaced(SessionID, status: SessionStatus, rows: Int, file: String)
    /// The catalog's row count is not the number of rows in the session's file.
    case countDiffers(SessionID, catalog: Int, found: Int, file: String)
    /// A take the catalog says is being recorded, while no process records its user.
    case unfinished(SessionID, rows: Int)
    /// Sessions in a file that the catalog does not know.
    case uncatalogued([SessionID], file: String)
    /// A line that is not a row.
    case damaged(file: String, line: Int, reason: String)
    /// A line that is not a row, too long to move.
    case tooLongToMove(file: String, line: Int, bytes: Int)
    /// The last row has no newline after it.
    case missingNewline(file: String)
    /// A file that cannot be read as text at all.
    case unreadable(file: String, reason: String)
    /// A temporary file that a rewrite left behind when it was stopped; the file it was to replace is whole.
    case leftover(file: String)
    /// A trimmed session's file holds rows outside the stretch it keeps: a trim was stopped.
    case untrimmed(SessionID, kept: ClosedRange<Double>, rows: Int, file: String)
    /// Rows labeled otherwise than the catalog's spans say: a relabel was stopped.
    case labelsDiffer(SessionID, rows: Int, file: String)

    public var description: String {
        switch self {
        case .misplaced(let id, let status, let rows, let file):
            "session \(id) is \(status.rawValue), but \(file) holds \(rows) of its rows"
        case .countDiffers(let id, let catalog, let found, let file):
            "session \(id): the catalog says \(catalog.counting("row")), \(file) holds \(found)"
        case .unfinished(let id, let rows):
            "session \(id) is still marked as being recorded, but no gesture process records it (\(rows.counting("row")))"
        case .uncatalogued(let ids, let file):
            "\(file) holds \(ids.count.counting("session")) the catalog does not know: "
                + ids.prefix(5).map(\.rawValue).joined(separator: ", ") + (ids.count > 5 ? ", …" : "")
        case .damaged(let file, let line, let reason): "\(file):\(line): \(reason)"
        case .tooLongToMove(let file, let line, let bytes):
            "\(file):\(line): the line is \(bytes) bytes long, not a recording row and too long for repair to move; take it out of the file by hand"
        case .missingNewline(let file): "\(file): the last line has no newline"
        case .unreadable(let file, let reason): "\(file): \(reason)"
        case .leftover(let file): "\(file) is left over from a rewrite that was stopped"
        case .untrimmed(let id, let kept, let rows, let file):
            "session \(id) is trimmed to \(String(format: "%.2f–%.2f s", kept.lowerBound, kept.upperBound)), but \(file) holds \(rows.counting("row")) outside it"
        case .labelsDiffer(let id, let rows, let file):
            "session \(id): \(rows.counting("row")) in \(file) labeled otherwise than the catalog says"
        }
    }

    /// What `repair` does about it, or nil if it leaves it to the user.
    public var repair: String? {
        switch self {
        case .misplaced: "move the rows to where the status puts them"
        case .untrimmed: "move them to discarded/"
        case .countDiffers(_, _, let found, _): found > 0 ? "count the rows again" : nil
        case .unfinished: "mark the take incomplete with the rows its file holds"
        case .uncatalogued: "add them to the catalog as recovered"
        case .damaged(let file, _, _): "move the line to \(Archive.damagedFolderName)/\(file)"
        case .missingNewline: "add the newline"
        case .unreadable, .tooLongToMove: nil
        case .leftover: "remove it"
        case .labelsDiffer: "label them as the catalog says"
        }
    }
}

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
    /// Where lines that are not rows go when repaired, under the recordings folder.
    public static let damagedFolderName = "damaged"

    /// Reads every recording file and compares it with the catalog: each kept or incomplete session
    /// must have exactly its sample count of rows in its file and none in discarded/, each discarded
    /// session the reverse, every line must be a row, and every session in a file must be
    /// catalogued. Users whose recordings another process is using are skipped and named.
    public func check() throws(StoreError) -> CheckReport {
        try withEveryUsersLock(for: "checking") { busy throws(StoreError) in
            var report = try compare(scanFiles(skipping: busy), try catalog.sessions(), busy: busy)
            report.busy = busy.values.sorted()
            return report
        }
    }

    /// Repairs every discrepancy it can without deleting a row: lines that are not rows move to
    /// damaged/, unknown sessions enter the catalog, rows move to where their status puts them, and
    /// row counts are taken from the files. Returns what it repaired and the check that follows.
    public func repair() throws(StoreError) -> (repaired: [Discrepancy], after: CheckReport) {
        try withEveryUsersLock(for: "repairing") { busy throws(StoreError) in
            var repaired: [Discrepancy] = []
            var scans = scanFiles(skipping: busy)
            repaired += try repairFiles(scans)
            scans = scanFiles(skipping: busy)
            var report = try compare(scans, try catalog.sessions(), busy: busy)
            repaired += try recoverUncatalogued(report.discrepancies, scans: scans)
            try placeRows(of: try catalog.sessions().filter { busy[$0.user] == nil })
            repaired += report.discrepancies.filter {
                switch $0 {
                case .misplaced, .untrimmed: true
                default: false
                }
            }
            scans = scanFiles(skipping: busy)
            report = try compare(scans, try catalog.sessions(), busy: busy)
            repaired += try recount(report.discrepancies, scans: scans)
            repaired += try relabel(report.discrepancies)
            var after = try compare(scanFiles(skipping: busy), try catalog.sessions(), busy: busy)
            after.busy = busy.values.sorted()
            return (repaired, after)
        }
    }

    /// Runs `body` holding the locks of every user the catalog or the files name that no other
    /// process is using; those it could not lock are passed to it with why.
    private func withEveryUsersLock<T>(
        for activity: String, _ body: (_ busy: [UserID: String]) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        // Nobody changes a folder that cannot be written to; checking it needs no lock.
        guard access(folder.root.string, W_OK) == 0 else { return try body([:]) }
        let names = folder.csvFiles(in: folder.root).compactMap { try? UserID(fileName: $0.lastComponent!.string) }
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

    private func compare(
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
    private func scanFiles(skipping busy: [UserID: String]) -> [String: FileScan] {
        var scans: [String: FileScan] = [:]
        for folder in [folder.root, folder.discardedFolder] {
            for path in self.folder.csvFiles(in: folder) {
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

    /// Takes lines that are not rows out of the files, into damaged/, adds missing newlines, and
    /// removes leftover temporary files.
    private func repairFiles(_ scans: [String: FileScan]) throws(StoreError) -> [Discrepancy] {
        var repaired: [Discrepancy] = []
        for scan in scans.values.sorted(by: { $0.file < $1.file }) where !scan.problems.isEmpty {
            for problem in scan.problems {
                switch problem {
                case .leftover(let file):
                    unlink(folder.absolute(file).string)
                    repaired.append(problem)
                case .missingNewline(let file):
                    try RecordingLines(path: folder.absolute(file), longestLine: longestLineToMove).rewrite()
                    repaired.append(problem)
                default: continue
                }
            }
            let damaged = scan.problems.compactMap { if case .damaged(_, let line, _) = $0 { line } else { nil } }
            guard !damaged.isEmpty else { continue }
            try moveDamagedLines(damaged, of: scan.file)
            repaired += scan.problems.filter { if case .damaged = $0 { true } else { false } }
        }
        return repaired
    }

    /// Appends the lines to the same-named file in damaged/ (those not there yet), then takes them
    /// out of their file: a crash in between leaves them in both.
    private func moveDamagedLines(_ numbers: [Int], of file: String) throws(StoreError) {
        let source = RecordingLines(path: folder.absolute(file), longestLine: longestLineToMove)
        let destination = folder.root.appending(Self.damagedFolderName).pushing(FilePath(file))
        let quarantine = RecordingLines(path: destination, header: nil, longestLine: longestLineToMove)
        let present = Set(try quarantine.lines())
        let moving = try source.lines(numbered: Set(numbers)).filter { !present.contains($0) }
        if !moving.isEmpty {
            try FileManager.default.createDirectoryIfNeeded(destination.removingLastComponent())
            try quarantine.rewrite(adding: moving)
        }
        try source.rewrite(numbered: Set(numbers))
    }

    /// Catalogues the sessions found in files only: in discarded/ as discarded, elsewhere as
    /// incomplete, with the rate and timing of their rows.
    private func recoverUncatalogued(
        _ discrepancies: [Discrepancy], scans: [String: FileScan]
    ) throws(StoreError) -> [Discrepancy] {
        var repaired: [Discrepancy] = []
        var recovered = Set<SessionID>()
        for case .uncatalogued(let ids, let file) in discrepancies {
            guard let scan = scans[file], let user = try? UserID(fileName: FilePath(file).lastComponent!.string) else {
                continue
            }
            let discarded = file.hasPrefix(folder.relative(folder.discardedFolder) + "/")
            let live = discarded ? String(file.dropFirst(folder.relative(folder.discardedFolder).count + 1)) : file
            for id in ids where !recovered.contains(id) {
                guard let rows = scan.sessions[id] else { continue }
                recovered.insert(id)
                try catalog.insert(rows.recoveredRecord(id: id, user: user, file: live, discarded: discarded))
            }
            repaired.append(.uncatalogued(ids, file: file))
        }
        return repaired
    }

    /// Labels rows as the catalog's spans say where a relabel was stopped.
    private func relabel(_ discrepancies: [Discrepancy]) throws(StoreError) -> [Discrepancy] {
        let differing = discrepancies.filter { if case .labelsDiffer = $0 { true } else { false } }
        let ids = Set(differing.compactMap { if case .labelsDiffer(let id, _, _) = $0 { id } else { nil } })
        try placeLabels(of: try catalog.sessions(SessionFilter(ids: Array(ids))))
        return differing
    }

    /// Takes the row counts and timing of unfinished takes and miscounted sessions from their files.
    private func recount(_ discrepancies: [Discrepancy], scans: [String: FileScan]) throws(StoreError) -> [Discrepancy]
    {
        var repaired: [Discrepancy] = []
        let records = Dictionary(uniqueKeysWithValues: try catalog.sessions().map { ($0.id, $0) })
        for discrepancy in discrepancies where discrepancy.repair != nil {
            let id: SessionID
            switch discrepancy {
            case .unfinished(let session, _), .countDiffers(let session, _, _, _): id = session
            default: continue
            }
            guard var record = records[id] else { continue }
            let rows = scans[home(of: record)]?.sessions[id] ?? SessionRows()
            if record.isBeingRecorded {
                record.status = .incomplete
                record.reason = "the recording stopped before it saved this take; recovered by gesture check"
            }
            rows.time(&record)
            try catalog.finish(record)
            repaired.append(discrepancy)
        }
        return repaired
    }
}

extension SessionRecord {
    var isBeingRecorded: Bool { status == .incomplete && reason == Self.recordingReason }
}

/// One session's rows in one file.
struct SessionRows {
    var times: [Double] = []
    var activities: [ActivityLabel] = []

    var count: Int { times.count }

    mutating func add(_ row: RecordingRow) {
        times.append(row.timestamp)
        activities.append(row.activity)
    }

    /// Sets the record's count, rate and jitter from these rows.
    func time(_ record: inout SessionRecord) {
        let nominal = record.deviceRate > 0 ? record.deviceRate : 1 / (medianInterval ?? .nan)
        let timing = TimingStats(times: times, nominalRate: nominal)
        record.sampleCount = count
        record.achievedRate = timing.achievedRate
        record.jitterMs = timing.jitter * 1000
    }

    private var medianInterval: Double? {
        zip(times.dropFirst(), times).map { $0 - $1 }.filter { $0 > 0 }.median
    }

    /// A catalog record for rows the catalog did not know: its gesture is the most frequent label
    /// other than rest, its start the one its ID begins with.
    func recoveredRecord(id: SessionID, user: UserID, file: String, discarded: Bool) -> SessionRecord {
        let counts = Dictionary(activities.filter { !$0.isRest }.map { ($0, 1) }, uniquingKeysWith: +)
        let gesture = counts.sorted { $0.key < $1.key }.max { $0.value < $1.value }?.key ?? .rest
        let start = id.take.map { _ in String(id.rawValue[..<id.rawValue.lastIndex(of: "-")!]) } ?? ""
        var record = SessionRecord(
            id: id, user: user, gesture: gesture, take: id.take ?? 1, start: start, end: "",
            device: "unknown", requestedRate: 0, deviceRate: 0, achievedRate: 0, jitterMs: 0, sampleCount: 0,
            file: file, status: discarded ? .discarded : .incomplete,
            reason: "recovered by gesture check: the catalog had no record of it")
        time(&record)
        record.requestedRate = record.achievedRate
        record.deviceRate = record.achievedRate
        return record
    }
}

/// What one file holds: each session's rows, and what is wrong with it.
struct FileScan {
    var file: String
    var sessions: [SessionID: SessionRows] = [:]
    var problems: [Discrepancy] = []

    init(file: String, problems: [Discrepancy]) {
        self.file = file
        self.problems = problems
    }

    /// Reads the file a block of lines at a time, as loading does: a large file is checked at the
    /// speed it loads, in the memory of one block and its sessions' timestamps.
    init(path: FilePath, file: String, longestLineToMove: Int) {
        self.file = file
        var reader = RecordingCSV.Reader(file: file)
        do {
            var blocks = try LineBlocks(path: path.string)
            while let block = try blocks.next() {
                switch block {
                case .overlong(let length):
                    let line = reader.skipLine()
                    problems.append(
                        length > longestLineToMove
                            ? .tooLongToMove(file: file, line: line, bytes: length)
                            : .damaged(
                                file: file, line: line, reason: "the line is \(length) bytes long: not a recording row")
                    )
                case .lines(let bytes):
                    guard String(validating: bytes, as: UTF8.self) != nil else {
                        problems.append(.unreadable(file: file, reason: "cannot be read as UTF-8 text"))
                        return
                    }
                    scan(bytes, with: &reader)
                }
            }
        } catch {
            problems.append(.unreadable(file: file, reason: error.reason))
        }
    }

    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, with reader: inout RecordingCSV.Reader) {
        var lastIsDamaged = false
        for line in Lines(bytes) {
            do throws(CSVError) {
                if let row = try reader.read(line) { sessions[row.session, default: SessionRows()].add(row) }
                lastIsDamaged = false
            } catch {
                problems.append(.damaged(file: file, line: error.line, reason: error.reason))
                lastIsDamaged = true
            }
        }
        // A damaged last line moves aside whole; a row without its newline gets one.
        if bytes.last != UInt8(ascii: "\n"), !lastIsDamaged { problems.append(.missingNewline(file: file)) }
    }
}
