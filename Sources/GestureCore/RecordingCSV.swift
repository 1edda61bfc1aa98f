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

/// The recording CSV: a header, then one `RecordingRow` per line.
///
/// The reader also takes the book's headerless 14-column files (sessionId, numeric activity code,
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
        for value in row.motion.values { fields.append(format(value)) }
        for axis in 0..<3 { fields.append(format(row.rawAcceleration[axis])) }
        for axis in 0..<3 { fields.append(format(row.rawRotationRate[axis])) }
        return fields.joined(separator: ",")
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
        var rows: [RecordingRow] = []
        // A recording line is about 350 bytes; reserving avoids regrowing a million-row array.
        rows.reserveCapacity(bytes.count / 300)
        var start = 0
        while start < bytes.count {
            let end = CSVBytes.index(of: UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
            if let row = try reader.read(UnsafeBufferPointer(rebasing: bytes[start..<end])) { rows.append(row) }
            start = end + 1
        }
        return rows
    }

    /// A text's lines, LF or CRLF: "\r\n" is a single Character, so splitting on "\n" alone
    /// would not split CRLF text.
    public static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// Reads a file line by line, telling a header, the book's format and malformed lines apart.
    public struct Reader {
        public let file: String
        public private(set) var lineNumber = 0
        private var format: Format?
        private var bookSampleCounts: [SessionID: Int] = [:]
        private var fields = CSVFields()
        private var lastSession = Interned<SessionID>()
        private var lastActivity = Interned<ActivityLabel>()

        enum Format {
            case gestureLab(columnIndex: [Int], width: Int)
            case book
        }

        public init(file: String) { self.file = file }

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
                format = fields.count == 14
                    ? .book : .gestureLab(columnIndex: Array(RecordingCSV.columns.indices), width: RecordingCSV.columns.count)
            }
            switch format! {
            case .gestureLab(let index, let width): return try gestureLabRow(index: index, width: width)
            case .book: return try bookRow()
            }
        }

        private func columnIndex(header names: [String]) throws(CSVError) -> [Int] {
            let missing = RecordingCSV.columns.filter { !names.contains($0) }
            guard missing.isEmpty else {
                throw error("header lacks \(missing.joined(separator: ", ")); it has \(names.joined(separator: ", "))")
            }
            return RecordingCSV.columns.map { names.firstIndex(of: $0)! }
        }

        private mutating func gestureLabRow(index: [Int], width: Int) throws(CSVError) -> RecordingRow {
            guard fields.count == width else {
                throw error("expected \(width) fields, found \(fields.count)")
            }
            let n = try (2..<RecordingCSV.columns.count).map { (column) throws(CSVError) in
                try number(index[column], column: RecordingCSV.columns[column])
            }
            return RecordingRow(
                session: try session(index[0]),
                activity: try activity(index[1]),
                timestamp: n[0],
                motion: DeviceMotion(attitude: Attitude(roll: n[1], pitch: n[2], yaw: n[3]),
                                     rotationRate: Vector3(n[4], n[5], n[6]), gravity: Vector3(n[7], n[8], n[9]),
                                     userAcceleration: Vector3(n[10], n[11], n[12])),
                rawAcceleration: Vector3(n[13], n[14], n[15]),
                rawRotationRate: Vector3(n[16], n[17], n[18]))
        }

        private mutating func bookRow() throws(CSVError) -> RecordingRow {
            guard fields.count == 14 else {
                throw error("expected 14 fields as in the book's format, found \(fields.count)")
            }
            let id = try session(0)
            let codeText = fields.string(1)
            guard let code = Int(codeText), RecordingCSV.bookActivities.indices.contains(code) else {
                throw error("activity '\(codeText)' is not one of the book's codes 0-3")
            }
            var values: [Double] = []
            for (offset, name) in DeviceMotion.featureNames.enumerated() {
                values.append(try number(offset + 2, column: name))
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
            return lastSession.value(for: fields[field]) { SessionID(rawValue: $0) }!
        }

        private mutating func activity(_ field: Int) throws(CSVError) -> ActivityLabel {
            var failure: InvalidName?
            let label = lastActivity.value(for: fields[field]) { text in
                switch Result(catching: { () throws(InvalidName) in try ActivityLabel(text) }) {
                case .success(let label): return label
                case .failure(let error): failure = error; return nil
                }
            }
            guard let label else { throw self.error("activity: \(failure!)") }
            return label
        }

        private func number(_ field: Int, column: String) throws(CSVError) -> Double {
            guard let value = CSVBytes.double(fields[field]) else {
                throw error("\(column) '\(fields.string(field))' is not a number")
            }
            return value
        }

        private func error(_ reason: String) -> CSVError {
            CSVError(file: file, line: lineNumber, reason: reason)
        }
    }
}

/// The last value made from a field's text, reused while the text stays the same.
struct Interned<Value> {
    private var bytes: [UInt8] = []
    private var value: Value?

    mutating func value(for field: UnsafeBufferPointer<UInt8>, make: (String) -> Value?) -> Value? {
        if let value, field.elementsEqual(bytes) { return value }
        bytes = Array(field)
        value = make(String(decoding: field, as: UTF8.self))
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
