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

    init(path: FilePath, mapping: ColumnMapping, options: ImportOptions) throws(AnalysisError) {
        let name = path.lastComponent!.string
        var text = String(decoding: try RecordingFile.contents(of: path), as: UTF8.self)
        // Excel writes a byte-order mark before the header.
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var lines = RecordingCSV.lines(of: text).makeIterator()
        guard let headerLine = lines.next() else { throw AnalysisError("\(path): empty file, no header") }
        let header = headerLine.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard mapping.columns[.user] != nil || options.user != nil else {
            throw AnalysisError(
                "\(name) has no user column mapped (user=<column>) and no user was given; its columns are \(header.joined(separator: ", ").quoted(limit: 300))",
                remedy: .user)
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
        let reader = try LineReader(
            positions: mapping.positions(in: header, file: path.string), mirrorColumn: mirrorColumn,
            width: header.count, options: options, file: path.string)
        var index: [String: Int] = [:]
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            if line.isEmpty { continue }
            let (user, key, label, sample) = try reader.read(line, lineNumber: lineNumber)
            let id = "\(user)\u{0}\(key)"
            if index[id] == nil {
                index[id] = sessions.count
                sessions.append(Session(user: user, key: key))
            }
            sessions[index[id]!].labels.append(label)
            sessions[index[id]!].samples.append(sample)
        }
        if let rate = options.sampleRate, mapping.columns[.time] == nil {
            for s in sessions.indices {
                for k in sessions[s].samples.indices { sessions[s].samples[k].time = Double(k) / rate }
            }
        }
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

    func read(_ line: Substring, lineNumber: Int) throws(AnalysisError) -> (UserID, String, ActivityLabel, RawSample) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        let fail = { (reason: String) in AnalysisError("\(file):\(lineNumber): \(reason)") }
        guard fields.count == width else { throw fail("expected \(width) fields, found \(fields.count)") }
        let text = { (field: ColumnMapping.Field) in positions[field].map { String(fields[$0]) } }
        let user: UserID
        let label: ActivityLabel
        do {
            user = try UserID(text(.user) ?? options.user!)
            label = try ActivityLabel(text(.label)!)
        } catch {
            throw fail("\(error)")
        }
        let session = text(.session)!
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
