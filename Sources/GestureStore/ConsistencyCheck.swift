import Foundation
import GestureCore

import struct SystemPackage.FilePath

/// What `gesture check` found: every place where the catalog and the CSV files disagree.
public struct CheckReport: Sendable {
    public var problems: [String] = []
    public var sessionsChecked = 0
    public var rowsChecked = 0

    public var isConsistent: Bool { problems.isEmpty }
}

extension Archive {
    /// Reads every recording file and compares it with the catalog: each kept or incomplete session
    /// must have exactly its sample count of rows in its file and none in discarded/, each discarded
    /// session the reverse, every file must parse, and every session in a file must be catalogued.
    public func check() throws(StoreError) -> CheckReport {
        var report = CheckReport()
        var rows: [String: [SessionID: Int]] = [:]
        for path in folder.csvFiles(in: folder.root) + folder.csvFiles(in: folder.discardedFolder) {
            let file = folder.relative(path)
            rows[file] = countRows(in: path, file: file, problems: &report.problems)
        }
        var catalogued = Set<SessionID>()
        for record in try catalog.sessions() {
            report.sessionsChecked += 1
            let live = record.file
            let discarded = folder.relative(folder.discardedFile(for: folder.absolute(record.file)))
            let (home, away) = record.status == .discarded ? (discarded, live) : (live, discarded)
            catalogued.insert(record.id)
            let found = rows[home]?[record.id] ?? 0
            report.rowsChecked += found
            if found != record.sampleCount {
                report.problems.append(
                    "session \(record.id) (\(record.status.rawValue)): the catalog says \(record.sampleCount) rows, \(home) holds \(found)"
                )
            }
            if let stray = rows[away]?[record.id] {
                report.problems.append(
                    "session \(record.id) (\(record.status.rawValue)) also has \(stray) rows in \(away)")
            }
        }
        for (file, sessions) in rows.sorted(by: { $0.key < $1.key }) {
            let unknown = sessions.keys.filter { !catalogued.contains($0) }.sorted()
            if !unknown.isEmpty {
                report.problems.append(
                    "\(file) holds \(unknown.count) sessions the catalog does not know: \(unknown.prefix(5).map(\.rawValue).joined(separator: ", "))\(unknown.count > 5 ? ", …" : "")"
                )
            }
        }
        return report
    }

    private func countRows(in path: FilePath, file: String, problems: inout [String]) -> [SessionID: Int] {
        guard let text = try? String(contentsOfFile: path.string, encoding: .utf8) else {
            problems.append("\(file): cannot be read as UTF-8 text")
            return [:]
        }
        if !text.isEmpty, !(text.last?.isNewline ?? false) {
            problems.append("\(file): the last line is incomplete")
        }
        var reader = RecordingCSV.Reader(file: file)
        var counts: [SessionID: Int] = [:]
        for line in RecordingCSV.lines(of: text) {
            do {
                if let row = try reader.read(line) { counts[row.session, default: 0] += 1 }
            } catch {
                problems.append(error.description)
            }
        }
        return counts
    }
}
