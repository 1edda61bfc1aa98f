import Foundation
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

extension Archive {
    /// Where lines that are not rows go when repaired, under the recordings folder.
    public static let damagedFolderName = "damaged"

    /// Repairs every discrepancy it can without deleting a row: lines that are not rows move to
    /// damaged/, unknown sessions enter the catalog, rows move to where their status puts them, and
    /// row counts are taken from the files. Returns what it repaired and the check that follows.
    public func repair() throws(StoreError) -> (repaired: [Discrepancy], after: CheckReport) {
        try withEveryUsersLock(for: "repairing") { busy throws(StoreError) in
            var repaired: [Discrepancy] = []
            var scans = try scanFiles(skipping: busy)
            repaired += try repairFiles(scans)
            scans = try scanFiles(skipping: busy)
            var report = try compare(scans, try catalog.sessions(), busy: busy)
            repaired += try recoverUncatalogued(report.discrepancies, scans: scans)
            try placeRows(of: try catalog.sessions().filter { busy[$0.user] == nil })
            repaired += report.discrepancies.filter {
                switch $0 {
                case .misplaced, .untrimmed: true
                default: false
                }
            }
            scans = try scanFiles(skipping: busy)
            report = try compare(scans, try catalog.sessions(), busy: busy)
            repaired += try recount(report.discrepancies, scans: scans)
            repaired += try relabel(report.discrepancies)
            var after = try compare(try scanFiles(skipping: busy), try catalog.sessions(), busy: busy)
            after.busy = busy.values.sorted()
            return (repaired, after)
        }
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
