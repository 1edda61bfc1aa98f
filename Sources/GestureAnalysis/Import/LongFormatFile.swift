import GestureCore

import struct SystemPackage.FilePath

/// A long-format CSV from another tool, one sample per line, read through a column mapping into
/// raw samples grouped by user and session, in file order. Plain CSV: no quoted fields.
struct LongFormatFile {
    struct Session {
        var user: UserID
        var key: String
        var labels: [ActivityLabel] = []
        var samples: [RawSample] = []
    }

    var sessions: [Session] = []

    /// Reads the file; `reading` is told the share of its bytes read so far, block by block.
    init(
        path: FilePath, mapping: ColumnMapping, options: ImportOptions, reading: (Double) -> Void = { _ in }
    ) throws(AnalysisError) {
        var reader: LineReader?
        var index: [String: Int] = [:]
        try Self.forEachLine(of: path, reading: reading) { line, lineNumber throws(AnalysisError) in
            guard let lineReader = reader else {
                // Excel writes a byte-order mark before the header.
                let header = line.hasPrefix("\u{FEFF}") ? line.dropFirst() : line
                reader = try Self.reader(header: header, path: path, mapping: mapping, options: options)
                return
            }
            if line.isEmpty { return }
            let (user, key, label, sample) = try lineReader.read(line, lineNumber: lineNumber)
            let id = "\(user)\u{0}\(key)"
            if index[id] == nil {
                index[id] = sessions.count
                sessions.append(Session(user: user, key: key))
            }
            sessions[index[id]!].labels.append(label)
            sessions[index[id]!].samples.append(sample)
        }
        guard reader != nil else { throw AnalysisError("\(path): empty file, no header") }
        if let rate = options.sampleRate, mapping.columns[.time] == nil {
            for s in sessions.indices {
                for k in sessions[s].samples.indices { sessions[s].samples[k].time = Double(k) / rate }
            }
        }
    }

    private static func reader(
        header headerLine: Substring, path: FilePath, mapping: ColumnMapping, options: ImportOptions
    ) throws(AnalysisError) -> LineReader {
        let name = path.lastComponent!.string
        let header = headerLine.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard mapping.columns[.user] != nil || options.user != nil else {
            throw AnalysisError(
                "\(name) has no user column mapped (user=<column>) and no user was given; its columns are \(header.joined(separator: ", ").quoted(limit: 300))",
                remedy: .user)
        }
        guard mapping.columns[.label] != nil || options.label != nil else {
            throw AnalysisError(
                "\(name) has no label column mapped (label=<column>) and no label was given; its columns are \(header.joined(separator: ", ").quoted(limit: 300))",
                remedy: .label)
        }
        guard mapping.columns[.time] != nil || options.sampleRate != nil else {
            throw AnalysisError(
                "\(name) has no time column mapped (time=<column>) and no sampling rate was given", remedy: .sampleRate)
        }
        let mirrorColumn = try options.mirror.map { rule throws(AnalysisError) in
            guard let index = header.firstIndex(of: rule.column) else {
                throw AnalysisError(
                    "\(path): the rows to mirror are where \(rule.column)=\(rule.value), but \(name) has no column '\(rule.column)'; its columns are \(header.joined(separator: ", ").quoted(limit: 300))",
                    setting: .mirror)
            }
            return index
        }
        return try LineReader(
            positions: mapping.positions(in: header, file: path.string), mirrorColumn: mirrorColumn,
            width: header.count, options: options, file: path.string, wholeFile: path.stem ?? name)
    }

    /// Calls `body` with each line of the file, LF or CRLF, and its number, a block at a time, and
    /// `reading` with the share of the file read after each block.
    private static func forEachLine(
        of path: FilePath, reading: (Double) -> Void, _ body: (Substring, Int) throws(AnalysisError) -> Void
    ) throws(AnalysisError) {
        var blocks: LineBlocks
        do { blocks = try LineBlocks(path: path.string) } catch { throw AnalysisError(error.description) }
        var number = 0, read = 0
        while let block = try next(of: &blocks) {
            guard case .lines(let bytes) = block else {
                throw AnalysisError("\(path):\(number + 1): the line is longer than \(blocks.longestLine) bytes")
            }
            read += bytes.count
            reading(blocks.size > 0 ? min(Double(read) / Double(blocks.size), 1) : 1)
            for line in Lines(bytes) {
                number += 1
                let text = line.last == UInt8(ascii: "\r") ? UnsafeBufferPointer(rebasing: line.dropLast()) : line
                guard let decoded = String(validating: text, as: UTF8.self) else {
                    throw AnalysisError("\(path):\(number): the line is not UTF-8 text")
                }
                try body(Substring(decoded), number)
            }
        }
    }

    private static func next(of blocks: inout LineBlocks) throws(AnalysisError) -> LineBlocks.Block? {
        do { return try blocks.next() } catch { throw AnalysisError(error.description) }
    }
}

/// Reads the mapped fields of one line.
private struct LineReader {
    let positions: [ColumnMapping.Field: Int]
    /// The column `options.mirror` tests, if any.
    let mirrorColumn: Int?
    let width: Int
    let options: ImportOptions
    let file: String
    /// The session of every row when no column names it.
    let wholeFile: String

    func read(_ line: Substring, lineNumber: Int) throws(AnalysisError) -> (UserID, String, ActivityLabel, RawSample) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        let fail = { (reason: String) in AnalysisError("\(file):\(lineNumber): \(reason)") }
        guard fields.count == width else { throw fail("expected \(width) fields, found \(fields.count)") }
        let text = { (field: ColumnMapping.Field) in positions[field].map { String(fields[$0]) } }
        let user: UserID
        let label: ActivityLabel
        do {
            user = try UserID(text(.user) ?? options.user!)
            label = try text(.label).map(ActivityLabel.init) ?? options.label!
        } catch {
            throw fail("\(error)")
        }
        let session = text(.session) ?? wholeFile
        guard !session.isEmpty else { throw fail("the session column is empty") }
        guard !session.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw fail("the session '\(session.quoted())' holds a control character")
        }
        func number(_ field: ColumnMapping.Field) throws(AnalysisError) -> Double {
            // Double(String) reads a C string: it would stop at a NUL and take the digits before it.
            guard !text(field)!.contains("\0"), let value = Double(text(field)!), value.isFinite else {
                throw fail("\(field.rawValue) '\(text(field)!.quoted())' is not a finite number")
            }
            return value
        }
        let accelerationScale = options.accelerationUnit == .g ? 1 : 1 / ImportOptions.standardGravity
        let rotationScale = options.rotationUnit == .radiansPerSecond ? 1 : Double.pi / 180
        var acceleration = Vector3.zero, rotation = Vector3.zero
        for axis in 0..<3 {
            acceleration[axis] = try number(ColumnMapping.Field.accelerometer[axis]) * accelerationScale
            rotation[axis] = try number(ColumnMapping.Field.gyroscope[axis]) * rotationScale
        }
        let time = positions[.time] == nil ? 0 : try number(.time)
        let sample = RawSample(time: time, acceleration: acceleration, rotationRate: rotation)
        if let rule = options.mirror, let mirrorColumn, fields[mirrorColumn] == rule.value {
            return (user, session, label, rule.mirroring.sample(sample))
        }
        return (user, session, label, sample)
    }
}
