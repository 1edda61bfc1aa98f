import GestureCore
import GestureMotion
import GestureStore

import struct SystemPackage.FilePath

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
            id: id, user: user, gesture: gesture, take: id.take ?? 1, start: start, end: nil,
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
