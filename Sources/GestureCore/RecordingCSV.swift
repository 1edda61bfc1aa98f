#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A CSV line that cannot be read, with the file and line it came from.
public struct CSVError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file):\(line): \(reason)" }
}

/// A recording file that cannot be read, or a line of it that is not a row.
public enum RecordingReadError: Error, Equatable, CustomStringConvertible {
    case unreadable(FileReadError)
    case malformed(CSVError)

    public var description: String {
        switch self {
        case .unreadable(let error): error.description
        case .malformed(let error): error.description
        }
    }
}

/// The recording CSV: a header, then one `RecordingRow` per line.
///
/// The reader also takes Machine Learning by Tutorials' headerless 14-column files (sessionId, numeric activity code,
/// the twelve features). Those carry no timestamps or raw readings: timestamps are counted at the
/// rate the book recorded at, and the raw readings are rebuilt from the features.
public enum RecordingCSV {
    public static let columns: [String] =
        ["sessionId", "activity", "timestamp"] + DeviceMotion.featureNames
        + ["rawAccelX", "rawAccelY", "rawAccelZ", "rawGyroX", "rawGyroY", "rawGyroZ"]

    public static let header = columns.joined(separator: ",")

    /// The book's activity codes: 0 rest_it, 1 drive_it, 2 shake_it, 3 chop_it.
    public static let bookActivities: [ActivityLabel] = [.rest, .drive, .shake, .chop]

    /// The rate, in Hz, at which the book's recordings were made.
    public static let bookRate = 25.0

    public static func line(for row: RecordingRow) -> String {
        var fields = [row.session.rawValue, row.activity.rawValue, format(row.timestamp)]
        fields.reserveCapacity(columns.count)
        appendFields(
            motion: row.motion, rawAcceleration: row.rawAcceleration, rawRotationRate: row.rawRotationRate, to: &fields)
        return fields.joined(separator: ",")
    }

    /// The motion and raw columns' fields, in the header's order.
    static func appendFields(
        motion: DeviceMotion, rawAcceleration: Vector3, rawRotationRate: Vector3, to fields: inout [String]
    ) {
        for value in motion.values { fields.append(format(value)) }
        for axis in 0..<3 { fields.append(format(rawAcceleration[axis])) }
        for axis in 0..<3 { fields.append(format(rawRotationRate[axis])) }
    }

    /// Shortest text that reads back as the same Double.
    static func format(_ value: Double) -> String { "\(value)" }

    /// Reads a whole file's text.
    public static func rows(in text: String, file: String) throws(CSVError) -> [RecordingRow] {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(CSVError) in try rows(inUTF8: bytes, file: file) }
        }.get()
    }

    /// Reads a whole file's bytes, UTF-8, LF or CRLF.
    public static func rows(inUTF8 bytes: UnsafeBufferPointer<UInt8>, file: String) throws(CSVError) -> [RecordingRow] {
        var reader = Reader(file: file)
        return try reader.readLines(of: bytes, from: 0)
    }

    /// Reads the recording file at `path` a block of lines at a time, so that memory holds its rows
    /// and one block, never its whole text, and hands `take` each block's rows in file order.
    ///
    /// A block is read in `pieces` pieces that `perform` may read at once, e.g. with
    /// `DispatchQueue.concurrentPerform`: `perform(pieces, readPiece)` must call `readPiece` once for
    /// each of 0..<pieces. The book's format, whose timestamps count rows per session through the
    /// whole file, is read in one piece. `reading` is told the bytes of each block read. A block is `blockSize` bytes, by default 4 MiB a piece; a
    /// line longer than a block and than `longestLine` is an error, without being read into memory.
    public static func read(
        file path: String, pieces: Int = 1, blockSize: Int? = nil, longestLine: Int = 1 << 20,
        perform: (Int, @escaping @Sendable (Int) -> Void) -> Void = { count, read in (0..<count).forEach(read) },
        reading: (_ bytes: Int) -> Void = { _ in },
        _ take: ([RecordingRow]) -> Void
    ) throws(RecordingReadError) {
        var blocks: LineBlocks
        do {
            blocks = try LineBlocks(path: path, blockSize: blockSize ?? max(pieces, 1) << 22, longestLine: longestLine)
        } catch {
            throw .unreadable(error)
        }
        var reader = Reader(file: path)
        while true {
            let block: LineBlocks.Block?
            do { block = try blocks.next() } catch { throw .unreadable(error) }
            switch block {
            case nil: return
            case .overlong(let length):
                reader.skipLine()
                throw .malformed(reader.error("the line is \(length) bytes long: not a recording row"))
            case .lines(let bytes):
                do { take(try reader.readBlock(bytes, pieces: pieces, perform: perform)) } catch {
                    throw .malformed(error)
                }
                reading(bytes.count)
            }
        }
    }

    /// A recording file's rows one at a time, read a block at a time as `read(file:)` reads it.
    public struct RowReader: ~Copyable {
        private var blocks: LineBlocks
        private var lines = Lines(UnsafeBufferPointer(start: nil, count: 0))
        private var reader: Reader

        public init(path: String) throws(RecordingReadError) {
            do { blocks = try LineBlocks(path: path) } catch { throw .unreadable(error) }
            reader = Reader(file: path)
        }

        /// The next row, nil after the last.
        public mutating func next() throws(RecordingReadError) -> RecordingRow? {
            while true {
                if let line = lines.next() {
                    do { if let row = try reader.read(line) { return row } } catch { throw .malformed(error) }
                    continue
                }
                let block: LineBlocks.Block?
                do { block = try blocks.next() } catch { throw .unreadable(error) }
                switch block {
                case nil: return nil
                case .overlong(let length):
                    reader.skipLine()
                    throw .malformed(reader.error("the line is \(length) bytes long: not a recording row"))
                case .lines(let bytes): lines = Lines(bytes)
                }
            }
        }
    }

    /// Every row of the recording file at `path`, read as `read(file:)` reads it.
    public static func rows(atPath path: String) throws(RecordingReadError) -> [RecordingRow] {
        var rows: [RecordingRow] = []
        try read(file: path) { rows += $0 }
        return rows
    }

    /// Ranges of about equal size that end at line ends.
    fileprivate static func pieceBounds(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, pieces: Int
    ) -> [Range<Int>] {
        var bounds: [Range<Int>] = []
        var lower = start
        for piece in 1...pieces where lower < bytes.count {
            let target = piece == pieces ? bytes.count : start + (bytes.count - start) * piece / pieces
            let upper =
                target >= bytes.count
                ? bytes.count
                : (CSVBytes.index(of: UInt8(ascii: "\n"), in: bytes, from: max(lower, target)) ?? bytes.count - 1) + 1
            bounds.append(lower..<upper)
            lower = upper
        }
        return bounds
    }

    /// A text's lines, LF or CRLF: "\r\n" is a single Character, so splitting on "\n" alone
    /// would not split CRLF text.
    public static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// Reads a file line by line, telling a header, the book's format and malformed lines apart.
    public struct Reader {
        public let file: String
        public internal(set) var lineNumber = 0
        var format: Format?
        private var bookSampleCounts: [SessionID: Int] = [:]
        private var fields = CSVFields()
        private var lastSession = Interned<SessionID>()
        private var lastActivity = Interned<ActivityLabel>()
        /// The numbers of the line being read, in `columns` order after the two names; reused.
        private var numbers = [Double](repeating: 0, count: RecordingCSV.columns.count - 2)

        enum Format {
            case gestureLab(columnIndex: [Int], width: Int)
            case book
        }

        public init(file: String) { self.file = file }

        /// The rows on the lines of `bytes` from `start` to its end.
        mutating func readLines(
            of bytes: UnsafeBufferPointer<UInt8>, from start: Int
        ) throws(CSVError) -> [RecordingRow] {
            var rows: [RecordingRow] = []
            // A recording line is about 350 bytes; reserving avoids regrowing a million-row array.
            rows.reserveCapacity((bytes.count - start) / 300)
            for line in Lines(UnsafeBufferPointer(rebasing: bytes[min(start, bytes.count)...])) {
                if let row = try read(line) { rows.append(row) }
            }
            return rows
        }

        /// The rows on the lines of `bytes`, read in up to `pieces` pieces once the format is known.
        mutating func readBlock(
            _ bytes: UnsafeBufferPointer<UInt8>, pieces: Int,
            perform: (Int, @escaping @Sendable (Int) -> Void) -> Void
        ) throws(CSVError) -> [RecordingRow] {
            var rows: [RecordingRow] = []
            var start = 0
            // The header, or the first row, tells the format.
            while start < bytes.count, format == nil {
                let end = CSVBytes.index(of: UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
                if let row = try read(UnsafeBufferPointer(rebasing: bytes[start..<end])) { rows.append(row) }
                start = end + 1
            }
            guard case .gestureLab = format, pieces > 1, start < bytes.count else {
                return rows + (try readLines(of: bytes, from: start))
            }
            let bounds = RecordingCSV.pieceBounds(bytes, from: start, pieces: pieces)
            var results = [Result<(rows: [RecordingRow], lines: Int), CSVError>](
                repeating: .success(([], 0)), count: bounds.count)
            results.withUnsafeMutableBufferPointer { results in
                // Each piece writes only its own result and reads its own bytes.
                nonisolated(unsafe) let (output, input, template) = (results, bytes, self)
                perform(bounds.count) { piece in
                    var pieceReader = template
                    pieceReader.lineNumber = 0
                    let range = UnsafeBufferPointer(rebasing: input[..<bounds[piece].upperBound])
                    output[piece] = Result { () throws(CSVError) in
                        (try pieceReader.readLines(of: range, from: bounds[piece].lowerBound), pieceReader.lineNumber)
                    }
                }
            }
            rows.reserveCapacity(bytes.count / 300)
            for result in results {
                switch result {
                case .success(let piece):
                    rows += piece.rows
                    lineNumber += piece.lines
                case .failure(var error):
                    error.line += lineNumber
                    throw error
                }
            }
            return rows
        }

        /// The line just read with its activity given as `label`, in its file's format: the label's
        /// name, or the book's code for it; nil when the book's format has no code for it.
        public func line(_ line: String, relabeledAs label: ActivityLabel) -> String? {
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            switch format {
            case .gestureLab(let index, _)?: fields[index[1]] = label.rawValue
            case .book?:
                guard let code = RecordingCSV.bookActivities.firstIndex(of: label) else { return nil }
                fields[1] = "\(code)"
            case nil: return line
            }
            return fields.joined(separator: ",")
        }

        /// Counts a line that was not read, e.g. one too long to be a row, and returns its number.
        @discardableResult
        public mutating func skipLine() -> Int {
            lineNumber += 1
            return lineNumber
        }

        /// The row on the next line, or nil for the header or a blank line.
        public mutating func read(_ line: Substring) throws(CSVError) -> RecordingRow? {
            var line = line
            return try line.withUTF8 { bytes in
                Result { () throws(CSVError) in try read(bytes) }
            }.get()
        }

        /// The row on the next line, given as its UTF-8 bytes without the newline.
        public mutating func read(_ line: UnsafeBufferPointer<UInt8>) throws(CSVError) -> RecordingRow? {
            lineNumber += 1
            let text = line.last == UInt8(ascii: "\r") ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
            if text.isEmpty { return nil }
            fields.split(text)
            if format == nil {
                // A header holds only names; every data line holds numbers. Its columns may come in any order.
                if !(0..<fields.count).contains(where: { CSVBytes.double(fields[$0]) != nil }) {
                    let names = (0..<fields.count).map { fields.string($0) }
                    format = .gestureLab(columnIndex: try columnIndex(header: names), width: names.count)
                    return nil
                }
                format =
                    fields.count == 14
                    ? .book
                    : .gestureLab(columnIndex: Array(RecordingCSV.columns.indices), width: RecordingCSV.columns.count)
            }
            switch format! {
            case .gestureLab(let index, let width): return try gestureLabRow(index: index, width: width)
            case .book: return try bookRow()
            }
        }

        private func columnIndex(header names: [String]) throws(CSVError) -> [Int] {
            let missing = RecordingCSV.columns.filter { !names.contains($0) }
            guard missing.isEmpty else {
                throw error(
                    "header lacks \(missing.joined(separator: ", ")); it has \(names.joined(separator: ", ").quoted(limit: 300))"
                )
            }
            return RecordingCSV.columns.map { names.firstIndex(of: $0)! }
        }

        private mutating func gestureLabRow(index: [Int], width: Int) throws(CSVError) -> RecordingRow {
            guard fields.count == width else {
                throw error("expected \(width) fields, found \(fields.count)")
            }
            for column in 2..<index.count {
                numbers[column - 2] = try number(index[column], column: column)
            }
            let n = numbers
            return RecordingRow(
                session: try session(index[0]),
                activity: try activity(index[1]),
                timestamp: n[0],
                motion: DeviceMotion(
                    attitude: Attitude(roll: n[1], pitch: n[2], yaw: n[3]),
                    rotationRate: Vector3(n[4], n[5], n[6]), gravity: Vector3(n[7], n[8], n[9]),
                    userAcceleration: Vector3(n[10], n[11], n[12])),
                rawAcceleration: Vector3(n[13], n[14], n[15]),
                rawRotationRate: Vector3(n[16], n[17], n[18]))
        }

        private mutating func bookRow() throws(CSVError) -> RecordingRow {
            guard fields.count == 14 else {
                throw error("expected 14 fields as in Machine Learning by Tutorials' format, found \(fields.count)")
            }
            let id = try session(0)
            let codeText = fields.string(1)
            guard let code = Int(codeText), RecordingCSV.bookActivities.indices.contains(code) else {
                throw error("activity '\(codeText.quoted())' is not one of Machine Learning by Tutorials' codes 0-3")
            }
            var values: [Double] = []
            for offset in DeviceMotion.featureNames.indices {
                values.append(try number(offset + 2, column: offset + 3))
            }
            let motion = DeviceMotion(values: values)
            let index = bookSampleCounts[id, default: 0]
            bookSampleCounts[id] = index + 1
            return RecordingRow(
                session: id, activity: RecordingCSV.bookActivities[code],
                timestamp: Double(index) / RecordingCSV.bookRate, motion: motion,
                rawAcceleration: motion.gravity + motion.userAcceleration,
                rawRotationRate: motion.rotationRate)
        }

        /// Rows of a session follow one another, so the previous row's ID is reused rather than
        /// allocating a string per row.
        private mutating func session(_ field: Int) throws(CSVError) -> SessionID {
            guard !fields[field].isEmpty else { throw error("sessionId is empty") }
            guard !fields[field].contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
                throw error("sessionId '\(fields.string(field).quoted())' holds a control character")
            }
            guard let id = lastSession.value(for: fields[field], make: SessionID.init(rawValue:)) else {
                throw error("sessionId is not UTF-8 text")
            }
            return id
        }

        private mutating func activity(_ field: Int) throws(CSVError) -> ActivityLabel {
            var failure: InvalidName?
            let label = lastActivity.value(for: fields[field]) { text in
                switch Result(catching: { () throws(InvalidName) in try ActivityLabel(text) }) {
                case .success(let label): return label
                case .failure(let error):
                    failure = error
                    return nil
                }
            }
            guard let label else { throw self.error(failure.map { "activity: \($0)" } ?? "activity is not UTF-8 text") }
            return label
        }

        /// The number in a field; `column` is its position in `RecordingCSV.columns`, for the error.
        private func number(_ field: Int, column: Int) throws(CSVError) -> Double {
            guard let value = CSVBytes.double(fields[field]) else {
                throw error("\(RecordingCSV.columns[column]) '\(fields.string(field).quoted())' is not a number")
            }
            guard value.isFinite || RecordingCSV.columns[column] != "timestamp" else {
                throw error("timestamp '\(fields.string(field).quoted())' is not a finite number of seconds")
            }
            return value
        }

        func error(_ reason: String) -> CSVError {
            CSVError(file: file, line: lineNumber, reason: reason)
        }
    }
}

/// The last value made from a field's text, reused while the text stays the same.
struct Interned<Value> {
    private var bytes: [UInt8] = []
    private var value: Value?

    /// nil where `make` gives nil or the text is not UTF-8.
    mutating func value(for field: UnsafeBufferPointer<UInt8>, make: (String) -> Value?) -> Value? {
        if let value, field.count == bytes.count,
            field.isEmpty
                || bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, field.baseAddress!, field.count) == 0 })
        {
            return value
        }
        bytes = Array(field)
        value = String(validating: field, as: UTF8.self).flatMap(make)
        return value
    }
}

/// The comma-separated fields of one line, as ranges of its bytes; reused from line to line.
struct CSVFields {
    private var line = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    private var bounds: [Int] = []

    var count: Int { bounds.count / 2 }

    mutating func split(_ line: UnsafeBufferPointer<UInt8>) {
        self.line = line
        bounds.removeAll(keepingCapacity: true)
        var start = 0
        while let comma = CSVBytes.index(of: UInt8(ascii: ","), in: line, from: start) {
            bounds.append(start)
            bounds.append(comma)
            start = comma + 1
        }
        bounds.append(start)
        bounds.append(line.count)
    }

    subscript(field: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: line[bounds[2 * field]..<bounds[2 * field + 1]])
    }

    func string(_ field: Int) -> String { String(decoding: self[field], as: UTF8.self) }
}
