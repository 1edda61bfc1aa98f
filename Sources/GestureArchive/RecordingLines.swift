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

    /// The file's first line when it is a header, not a row: what a file its rows move to starts
    /// with, as it may name a companion's columns after the recording's own.
    func headerLine() throws(StoreError) -> String? {
        guard var blocks = try openBlocks(), case .lines(let bytes)? = try next(of: &blocks) else { return nil }
        var lines = Lines(bytes)
        guard let first = lines.next(), !first.isEmpty else { return nil }
        var reader = RecordingCSV.Reader(file: path.string)
        do {
            guard try reader.read(first) == nil else { return nil }
        } catch {
            return nil
        }
        let text = first.last == UInt8(ascii: "\r") ? UnsafeBufferPointer(rebasing: first.dropLast()) : first
        return String(decoding: text, as: UTF8.self)
    }

    /// Writes the file anew: its lines as they are, each with a newline, but those of `sessions`
    /// and those numbered `numbers`, then `adding`; a file that was empty or missing starts with
    /// `header`. A crash leaves the old file or the new one.
    func rewrite(
        removing sessions: Set<SessionID> = [], numbered numbers: Set<Int> = [], adding: [String] = []
    ) throws(StoreError) {
        try rewrite(removing: sessions, numbered: numbers) { output in
            for line in adding { Self.write(line.utf8, to: &output) }
        }
    }

    /// Writes the file anew as `rewrite(removing:numbered:adding:)` does, with what `appending`
    /// writes in place of `adding`, so that the lines added need not be held.
    func rewrite(
        removing sessions: Set<SessionID> = [], numbered numbers: Set<Int> = [],
        appending: (inout FileOutput) throws(StoreError) -> Void
    ) throws(StoreError) {
        var status = stat()
        let isNew = stat(path.string, &status) != 0 || status.st_size == 0
        try replaceContents(of: path) { output throws(StoreError) in
            if isNew, let header { Self.write(header.utf8, to: &output) }
            var member = SessionMembership(sessions)
            try forEachLine { number, line in
                if !numbers.contains(number), !member.contains(line) { Self.write(line, to: &output) }
            }
            try appending(&output)
        }
    }

    /// Writes the lines of the rows of these sessions that `picks` picks, in file order, to `output`,
    /// but those in `except`.
    func copyRows(
        of sessions: Set<SessionID>, where picks: (RecordingRow) -> Bool, except: Set<String> = [],
        to output: inout FileOutput
    ) throws(StoreError) {
        try forEachRow(of: sessions, skippingOverlong: true) { line, row in
            guard let row, picks(row), except.isEmpty || !except.contains(String(decoding: line, as: UTF8.self))
            else { return }
            Self.write(line, to: &output)
        }
    }

    /// How many rows of these sessions `picks` picks.
    func count(rowsOf sessions: Set<SessionID>, where picks: (RecordingRow) -> Bool) throws(StoreError) -> Int {
        var count = 0
        try forEachRow(of: sessions, skippingOverlong: true) { _, row in
            if let row, picks(row) { count += 1 }
        }
        return count
    }

    /// The lines of the rows of these sessions that `picks` picks.
    func lines(ofRowsOf sessions: Set<SessionID>, where picks: (RecordingRow) -> Bool) throws(StoreError) -> Set<String>
    {
        var lines = Set<String>()
        try forEachRow(of: sessions, skippingOverlong: true) { line, row in
            if let row, picks(row) { lines.insert(String(decoding: line, as: UTF8.self)) }
        }
        return lines
    }

    /// Writes the rows of `session` in this file and those of it in `other` that `picks` picks,
    /// merged in time order (this file's first at equal times), a line both files hold once: in
    /// time order when each file holds them in time order, as gesture writes them. Holds a line
    /// of each file, and the lines of one time.
    func writeMerged(
        _ session: SessionID, with other: RecordingLines, where picks: @escaping (RecordingRow) -> Bool,
        to output: inout FileOutput
    ) throws(StoreError) {
        var own = try RowCursor(self, session: session) { _ in true }
        var others = try RowCursor(other, session: session, picks: picks)
        try own.advance()
        try others.advance()
        while true {
            switch (own.current, others.current) {
            case (nil, nil): return
            case (let mine?, let theirs?) where theirs.row.timestamp < mine.row.timestamp:
                Self.write(theirs.line, to: &output)
                try others.advance()
            case (let mine?, let theirs?) where theirs.row.timestamp == mine.row.timestamp:
                // This file's lines at this time, then the other's that are not among them.
                var written = Set<[UInt8]>()
                while let mine = own.current, mine.row.timestamp == theirs.row.timestamp {
                    written.insert(Array(mine.line))
                    Self.write(mine.line, to: &output)
                    try own.advance()
                }
                while let other = others.current, other.row.timestamp == theirs.row.timestamp {
                    if !written.contains(Array(other.line)) { Self.write(other.line, to: &output) }
                    try others.advance()
                }
            case (let mine?, _):
                Self.write(mine.line, to: &output)
                try own.advance()
            case (nil, let theirs?):
                Self.write(theirs.line, to: &output)
                try others.advance()
            }
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
    func forEachRow(
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
        guard var blocks = try openBlocks() else { return }
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

    fileprivate func openBlocks() throws(StoreError) -> LineBlocks? {
        guard access(path.string, F_OK) == 0 else { return nil }
        do { return try LineBlocks(path: path.string, longestLine: longestLine) } catch {
            throw StoreError(error.description)
        }
    }
}

private func next(of blocks: inout LineBlocks) throws(StoreError) -> LineBlocks.Block? {
    do { return try blocks.next() } catch { throw StoreError(error.description) }
}

/// The rows of one session in a file that a test picks, one at a time (`advance` to the first),
/// each with its line, valid until the next; lines too long to move are passed over.
private struct RowCursor: ~Copyable {
    let picks: (RecordingRow) -> Bool
    var blocks: LineBlocks?
    var block = Lines(UnsafeBufferPointer(start: nil, count: 0))
    var reader: RecordingCSV.Reader
    var member: SessionMembership
    var number = 0
    private(set) var current: (row: RecordingRow, line: UnsafeBufferPointer<UInt8>)?

    init(_ lines: RecordingLines, session: SessionID, picks: @escaping (RecordingRow) -> Bool) throws(StoreError) {
        let opened = try lines.openBlocks()
        self.picks = picks
        blocks = opened
        reader = RecordingCSV.Reader(file: lines.path.string)
        member = SessionMembership([session])
    }

    mutating func advance() throws(StoreError) {
        current = nil
        while current == nil {
            guard let line = try nextLine() else { return }
            number += 1
            let row = number == 1 || member.contains(line) ? try? reader.read(line) : nil
            if let row = row.flatMap({ $0 }), member.sessions.contains(row.session), picks(row) {
                current = (row, line)
            }
        }
    }

    private mutating func nextLine() throws(StoreError) -> UnsafeBufferPointer<UInt8>? {
        while true {
            if let line = block.next() { return line }
            guard var opened = blocks.take() else { return nil }
            let read = try next(of: &opened)
            blocks = consume opened
            switch read {
            case nil: return nil
            case .lines(let bytes): block = Lines(bytes)
            case .overlong: number += 1
            }
        }
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
