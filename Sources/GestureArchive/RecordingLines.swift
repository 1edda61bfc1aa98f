import Foundation
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

/// A recording file as lines, read and rewritten a block at a time, so that rows move between files
/// exactly as written, in the memory of one block and the lines that move.
struct RecordingLines {
    let path: FilePath
    /// What a new file starts with: the recording header, or nothing for a file of damaged lines.
    var header: String? = RecordingCSV.header
    /// The longest line that can move; a longer one is an error.
    var longestLine = Archive.defaultLongestLineToMove

    /// The rows of these sessions with their lines, in file order.
    func rows(of sessions: Set<SessionID>) throws(StoreError) -> [(row: RecordingRow, line: String)] {
        var rows: [(row: RecordingRow, line: String)] = []
        try forEachRow(of: sessions, skippingOverlong: true) { line, row in
            if let row { rows.append((row, String(decoding: line, as: UTF8.self))) }
        }
        return rows
    }

    /// The lines with these numbers, counted from 1 at the file's first line; every line if nil.
    func lines(numbered numbers: Set<Int>? = nil) throws(StoreError) -> [String] {
        var lines: [String] = []
        try forEachLine { number, line in
            if numbers?.contains(number) ?? true { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        return lines
    }

    /// Writes the file anew: its lines as they are, each with a newline, but those of `sessions`
    /// and those numbered `numbers`, then `adding`; a file that was empty or missing starts with
    /// `header`. A crash leaves the old file or the new one.
    func rewrite(
        removing sessions: Set<SessionID> = [], numbered numbers: Set<Int> = [], adding: [String] = []
    ) throws(StoreError) {
        var status = stat()
        let isNew = stat(path.string, &status) != 0 || status.st_size == 0
        try replaceContents(of: path) { output throws(StoreError) in
            if isNew, let header { Self.write(header.utf8, to: &output) }
            var member = SessionMembership(sessions)
            try forEachLine { number, line in
                if !numbers.contains(number), !member.contains(line) { Self.write(line, to: &output) }
            }
            for line in adding { Self.write(line.utf8, to: &output) }
        }
    }

    /// Writes the file anew with the rows of these sessions labeled as their spans say, each in the
    /// file's own format; every other line as it is. A crash leaves the old file or the new one.
    func rewrite(relabeling labels: [SessionID: [LabelSpan]]) throws(StoreError) {
        var reader = RecordingCSV.Reader(file: path.string)
        var unwritable: ActivityLabel?
        try replaceContents(of: path) { output throws(StoreError) in
            try forEachLine { _, line in
                guard let row = try? reader.read(line), let spans = labels[row.session],
                    case let label = spans.label(at: row.timestamp), label != row.activity
                else { return Self.write(line, to: &output) }
                guard let relabeled = reader.line(String(decoding: line, as: UTF8.self), relabeledAs: label) else {
                    unwritable = label
                    return
                }
                Self.write(relabeled.utf8, to: &output)
            }
            if let unwritable {
                throw StoreError(
                    "\(path) is in the book's format, which has no code for '\(unwritable)': only \(RecordingCSV.bookActivities.map(\.rawValue).joined(separator: ", "))"
                )
            }
        }
    }

    /// Writes the file anew without the rows of these sessions that `leaving` picks; every other
    /// line as it is. A crash leaves the old file or the new one.
    func rewrite(
        removingRowsOf sessions: Set<SessionID>, where leaving: (RecordingRow) -> Bool
    ) throws(StoreError) {
        try replaceContents(of: path) { output throws(StoreError) in
            try forEachRow(of: sessions) { line, row in
                if row.map(leaving) != true { Self.write(line, to: &output) }
            }
        }
    }

    /// Calls `body` with every line (lines too long to move passed over if `skippingOverlong`), and
    /// the row on it when it is one of these sessions'; the first line is always read, so that the
    /// reader knows the file's format.
    private func forEachRow(
        of sessions: Set<SessionID>, skippingOverlong: Bool = false,
        _ body: (UnsafeBufferPointer<UInt8>, RecordingRow?) -> Void
    ) throws(StoreError) {
        var reader = RecordingCSV.Reader(file: path.string)
        var member = SessionMembership(sessions)
        try forEachLine(skippingOverlong: skippingOverlong) { number, line in
            let row = number == 1 || member.contains(line) ? try? reader.read(line) : nil
            body(line, row.flatMap { $0 }.flatMap { sessions.contains($0.session) ? $0 : nil })
        }
    }

    private static func write(_ line: some Sequence<UInt8>, to output: inout FileOutput) {
        output.write(line)
        output.write(CollectionOfOne(UInt8(ascii: "\n")))
    }

    /// Calls `body` with each line's number and bytes, without its newline; none if the file does
    /// not exist. A line longer than `longestLine` is an error, or passed over if `skippingOverlong`.
    private func forEachLine(
        skippingOverlong: Bool = false, _ body: (Int, UnsafeBufferPointer<UInt8>) throws(StoreError) -> Void
    ) throws(StoreError) {
        guard access(path.string, F_OK) == 0 else { return }
        var blocks: LineBlocks
        do { blocks = try LineBlocks(path: path.string, longestLine: longestLine) } catch {
            throw StoreError(error.description)
        }
        var number = 0
        while let block = try next(of: &blocks) {
            guard case .lines(let bytes) = block else {
                number += 1
                if skippingOverlong { continue }
                throw StoreError(
                    "\(path):\(number) is longer than \(longestLine) bytes, too long to move; take that line out of the file by hand"
                )
            }
            for line in Lines(bytes) {
                number += 1
                try body(number, line)
            }
        }
    }

    private func next(of blocks: inout LineBlocks) throws(StoreError) -> LineBlocks.Block? {
        do { return try blocks.next() } catch { throw StoreError(error.description) }
    }
}

/// Whether a line's session, the text before its first comma, is one of a set; the answer for
/// the previous line's session is reused, as a session's lines follow one another.
private struct SessionMembership {
    let sessions: Set<SessionID>
    private var last: (session: [UInt8], member: Bool)?

    init(_ sessions: Set<SessionID>) { self.sessions = sessions }

    mutating func contains(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !sessions.isEmpty else { return false }
        let session = line[..<(line.firstIndex(of: UInt8(ascii: ",")) ?? line.endIndex)]
        if let last, last.session.elementsEqual(session) { return last.member }
        let member = sessions.contains(SessionID(rawValue: String(decoding: session, as: UTF8.self)))
        last = (Array(session), member)
        return member
    }
}
