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
        var reader = Reader(file: file)
        var rows: [RecordingRow] = []
        for line in lines(of: text) {
            if let row = try reader.read(line) { rows.append(row) }
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

        enum Format {
            case gestureLab(columnIndex: [Int], width: Int)
            case book
        }

        public init(file: String) { self.file = file }

        /// The row on the next line, or nil for the header or a blank line.
        public mutating func read(_ line: Substring) throws(CSVError) -> RecordingRow? {
            lineNumber += 1
            let text = line.last == "\r" ? line.dropLast() : line
            if text.isEmpty { return nil }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            if format == nil {
                // A header holds only names; every data line holds numbers. Its columns may come in any order.
                if !fields.contains(where: { Double($0) != nil }) {
                    format = .gestureLab(columnIndex: try columnIndex(header: fields), width: fields.count)
                    return nil
                }
                format = fields.count == 14
                    ? .book : .gestureLab(columnIndex: Array(RecordingCSV.columns.indices), width: RecordingCSV.columns.count)
            }
            return try read(fields)
        }

        private mutating func read(_ fields: [Substring]) throws(CSVError) -> RecordingRow? {
            switch format! {
            case .gestureLab(let index, let width): return try gestureLabRow(fields, index: index, width: width)
            case .book: return try bookRow(fields)
            }
        }

        private func columnIndex(header: [Substring]) throws(CSVError) -> [Int] {
            let names = header.map(String.init)
            let missing = RecordingCSV.columns.filter { !names.contains($0) }
            guard missing.isEmpty else {
                throw error("header lacks \(missing.joined(separator: ", ")); it has \(names.joined(separator: ", "))")
            }
            return RecordingCSV.columns.map { names.firstIndex(of: $0)! }
        }

        private func gestureLabRow(_ fields: [Substring], index: [Int], width: Int) throws(CSVError) -> RecordingRow {
            guard fields.count == width else {
                throw error("expected \(width) fields, found \(fields.count)")
            }
            var numbers: [Double] = []
            numbers.reserveCapacity(19)
            for column in 2..<RecordingCSV.columns.count {
                numbers.append(try number(fields[index[column]], column: RecordingCSV.columns[column]))
            }
            return RecordingRow(
                session: try session(fields[index[0]]),
                activity: try activity(fields[index[1]]),
                timestamp: numbers[0],
                motion: DeviceMotion(values: numbers[1...12]),
                rawAcceleration: Vector3(numbers[13], numbers[14], numbers[15]),
                rawRotationRate: Vector3(numbers[16], numbers[17], numbers[18]))
        }

        private mutating func bookRow(_ fields: [Substring]) throws(CSVError) -> RecordingRow {
            guard fields.count == 14 else {
                throw error("expected 14 fields as in the book's format, found \(fields.count)")
            }
            let id = try session(fields[0])
            guard let code = Int(fields[1]), RecordingCSV.bookActivities.indices.contains(code) else {
                throw error("activity '\(fields[1])' is not one of the book's codes 0-3")
            }
            var values: [Double] = []
            for (offset, name) in DeviceMotion.featureNames.enumerated() {
                values.append(try number(fields[offset + 2], column: name))
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

        private func session(_ field: Substring) throws(CSVError) -> SessionID {
            guard !field.isEmpty else { throw error("sessionId is empty") }
            return SessionID(rawValue: String(field))
        }

        private func activity(_ field: Substring) throws(CSVError) -> ActivityLabel {
            do {
                return try ActivityLabel(String(field))
            } catch {
                throw self.error("activity: \(error)")
            }
        }

        private func number(_ field: Substring, column: String) throws(CSVError) -> Double {
            guard let value = Double(field) else {
                throw error("\(column) '\(field)' is not a number")
            }
            return value
        }

        private func error(_ reason: String) -> CSVError {
            CSVError(file: file, line: lineNumber, reason: reason)
        }
    }
}
