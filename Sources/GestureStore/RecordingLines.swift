import Foundation
import GestureCore

import struct SystemPackage.FilePath

/// A recording file as lines, read and rewritten a block at a time, so that rows move between files
/// exactly as written, in the memory of one block and the lines that move.
struct RecordingLines {
    let path: FilePath
    /// What a new file starts with: the recording header, or nothing for a file of damaged lines.
    var header: String? = RecordingCSV.header
    /// The longest line that can move; a longer one is an error.
    var longestLine = Archive.defaultLongestLineToMove

    /// The lines of these sessions, in file order, without their newlines.
    func lines(of sessions: Set<SessionID>) throws(StoreError) -> [String] {
        var lines: [String] = []
        var member = SessionMembership(sessions)
        try forEachLine(skippingOverlong: true) { _, line in
            if member.contains(line) { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        return lines
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

    private static func write(_ line: some Sequence<UInt8>, to output: inout FileOutput) {
        output.write(line)
        output.write(CollectionOfOne(UInt8(ascii: "\n")))
    }

    /// Calls `body` with each line's number and bytes, without its newline; none if the file does
    /// not exist. A line longer than `longestLine` is an error, or passed over if `skippingOverlong`.
    private func forEachLine(
        skippingOverlong: Bool = false, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void
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
                body(number, line)
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
