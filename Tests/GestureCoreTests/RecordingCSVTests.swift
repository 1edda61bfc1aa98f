import GestureCore
import Testing

/// A row whose nineteen numbers are `numbers`, in `RecordingCSV.columns` order after the two names.
private func row(
    session: String = "2024-05-01T10:00:00Z-1", activity: ActivityLabel = .shake,
    _ numbers: [Double]
) -> RecordingRow {
    precondition(numbers.count == 19)
    return RecordingRow(
        session: SessionID(rawValue: session), activity: activity, timestamp: numbers[0],
        motion: DeviceMotion(values: numbers[1...12]),
        rawAcceleration: Vector3(numbers[13], numbers[14], numbers[15]),
        rawRotationRate: Vector3(numbers[16], numbers[17], numbers[18]))
}

/// The nineteen numbers of a row, in column order.
private func numbers(of row: RecordingRow) -> [Double] {
    [row.timestamp] + row.motion.values
        + [
            row.rawAcceleration.x, row.rawAcceleration.y, row.rawAcceleration.z,
            row.rawRotationRate.x, row.rawRotationRate.y, row.rawRotationRate.z,
        ]
}

/// Bit-for-bit equality, with any NaN equal to any NaN.
private func sameBits(_ a: Double, _ b: Double) -> Bool {
    a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
}

private func simpleRow(_ k: Int, session: String = "s-1", activity: ActivityLabel = .rest) -> RecordingRow {
    row(session: session, activity: activity, (0..<19).map { Double(k * 100 + $0) + 0.25 })
}

/// The fields of `row` rearranged from `RecordingCSV.columns` order into `order`.
private func fields(of row: RecordingRow, in order: [String]) -> [String] {
    let standard = RecordingCSV.line(for: row).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return order.map { name in RecordingCSV.columns.firstIndex(of: name).map { standard[$0] } ?? "extra" }
}

@Suite struct RecordingCSVFormatTests {
    @Test func headerNamesTheTwentyOneColumnsInOrder() {
        #expect(RecordingCSV.columns.count == 21)
        #expect(RecordingCSV.columns.prefix(3) == ["sessionId", "activity", "timestamp"])
        #expect(Array(RecordingCSV.columns[3..<15]) == DeviceMotion.featureNames)
        #expect(
            RecordingCSV.columns.suffix(6) == [
                "rawAccelX", "rawAccelY", "rawAccelZ", "rawGyroX", "rawGyroY", "rawGyroZ",
            ])
        #expect(RecordingCSV.header == RecordingCSV.columns.joined(separator: ","))
    }

    @Test func lineHasOneFieldPerColumnInHeaderOrder() throws {
        let numbers = (1...19).map { Double($0) / 8 }
        let line = RecordingCSV.line(for: row(session: "abc-2", activity: .chop, numbers))
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        try #require(fields.count == 21)
        #expect(fields[0] == "abc-2")
        #expect(fields[1] == "chop")
        for k in 2..<21 {
            #expect(Double(fields[k]) == numbers[k - 2], "column \(RecordingCSV.columns[k])")
        }
    }
}

@Suite struct RecordingCSVRoundTripTests {
    static let awkward: [Double] = [
        1e-300, -0.0, 0.1 + 0.2, 1e300, -2.5e307, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        .leastNormalMagnitude, 1 / 3, -.pi, 123_456_789.123_456_78, 9_007_199_254_740_992 + 2,
        0.0, -1e-17, .ulpOfOne, 1 + .ulpOfOne, .infinity, -.infinity, .nan,
    ]

    @Test func awkwardDoublesSurviveLineAndRowsBitForBit() throws {
        // Every awkward value in every column, by rotating the list across rows; but the timestamp,
        // which must be finite.
        let rows = (0..<Self.awkward.count).map { shift in
            row(
                session: "2024-05-01T10:00:00Z-\(shift + 1)", activity: shift.isMultiple(of: 2) ? .rest : .drive,
                (0..<19).map { column in
                    let value = Self.awkward[(column + shift) % Self.awkward.count]
                    return column == 0 && !value.isFinite ? Double(shift) : value
                })
        }
        let text = ([RecordingCSV.header] + rows.map(RecordingCSV.line(for:))).joined(separator: "\n") + "\n"
        let read = try RecordingCSV.rows(in: text, file: "alice.csv")
        try #require(read.count == rows.count)
        for (original, back) in zip(rows, read) {
            #expect(back.session == original.session)
            #expect(back.activity == original.activity)
            for (column, (a, b)) in zip(
                RecordingCSV.columns.dropFirst(2), zip(numbers(of: original), numbers(of: back)))
            {
                #expect(sameBits(a, b), "\(column): wrote \(a), read \(b)")
            }
        }
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let original = row(Array(repeating: -0.0, count: 19))
        let back = try #require(try RecordingCSV.rows(in: RecordingCSV.line(for: original), file: "f.csv").first)
        #expect(back.timestamp.sign == .minus)
        #expect(back.rawRotationRate.z.sign == .minus)
    }

    @Test func nanReadsBackAsNaN() throws {
        var numbers = (0..<19).map(Double.init)
        numbers[5] = .nan
        let back = try #require(try RecordingCSV.rows(in: RecordingCSV.line(for: row(numbers)), file: "f.csv").first)
        #expect(back.motion.values[4].isNaN)
        #expect(back.motion.values[3] == 4)
    }

    @Test func fileWithoutHeaderIsReadInStandardColumnOrder() throws {
        let rows = (0..<3).map { simpleRow($0) }
        let text = rows.map(RecordingCSV.line(for:)).joined(separator: "\n")
        #expect(try RecordingCSV.rows(in: text, file: "f.csv") == rows)
    }

    @Test func headerOnlyOrEmptyTextHasNoRows() throws {
        #expect(try RecordingCSV.rows(in: "", file: "f.csv").isEmpty)
        #expect(try RecordingCSV.rows(in: RecordingCSV.header + "\n", file: "f.csv").isEmpty)
    }

    @Test func blankLinesAreSkipped() throws {
        let rows = [simpleRow(1), simpleRow(2)]
        let text =
            "\n" + RecordingCSV.header + "\n\n" + RecordingCSV.line(for: rows[0]) + "\n\n\n"
            + RecordingCSV.line(for: rows[1]) + "\n"
        #expect(try RecordingCSV.rows(in: text, file: "f.csv") == rows)
    }

    @Test func crlfLineEndingsReadTheSameAsLF() throws {
        let rows = (0..<4).map { simpleRow($0, activity: .chop) }
        let lines = [RecordingCSV.header] + rows.map(RecordingCSV.line(for:))
        let crlf = try RecordingCSV.rows(in: lines.joined(separator: "\r\n") + "\r\n", file: "f.csv")
        #expect(crlf == rows)
    }

    @Test func readerReadsLineByLineAndCountsLines() throws {
        var reader = RecordingCSV.Reader(file: "f.csv")
        #expect(try reader.read(Substring(RecordingCSV.header)) == nil)
        #expect(try reader.read("") == nil)
        let original = simpleRow(5)
        #expect(try reader.read(Substring(RecordingCSV.line(for: original))) == original)
        #expect(try reader.read(Substring(RecordingCSV.line(for: original) + "\r")) == original)
        #expect(reader.lineNumber == 4)
    }
}

@Suite struct RecordingCSVHeaderTests {
    @Test func columnsInAnotherOrderAreReadByName() throws {
        let order = Array(RecordingCSV.columns.reversed())
        let rows = [simpleRow(1, activity: .drive), simpleRow(2, activity: .rest)]
        let lines = [order.joined(separator: ",")] + rows.map { fields(of: $0, in: order).joined(separator: ",") }
        #expect(try RecordingCSV.rows(in: lines.joined(separator: "\n"), file: "f.csv") == rows)
    }

    @Test func columnsShuffledWithSessionIdFirstAreReadByName() throws {
        var order = RecordingCSV.columns
        order.swapAt(1, 18)
        order.swapAt(2, 7)
        order.swapAt(4, 12)
        let original = simpleRow(3, activity: .shake)
        let text = order.joined(separator: ",") + "\n" + fields(of: original, in: order).joined(separator: ",")
        #expect(try RecordingCSV.rows(in: text, file: "f.csv") == [original])
    }

    @Test(arguments: [0, 7, 21])
    func anExtraColumnIsIgnored(at position: Int) throws {
        var order = RecordingCSV.columns
        order.insert("note", at: position)
        let original = simpleRow(4)
        let text = order.joined(separator: ",") + "\n" + fields(of: original, in: order).joined(separator: ",")
        #expect(try RecordingCSV.rows(in: text, file: "f.csv") == [original])
    }

    @Test(arguments: ["rawGyroY", "timestamp", "activity", "sessionId"])
    func headerMissingAColumnIsAnErrorNamingItFileAndLineOne(_ missing: String) throws {
        let header = RecordingCSV.columns.filter { $0 != missing }.joined(separator: ",")
        let text = header + "\n" + RecordingCSV.line(for: simpleRow(1))
        let error = try #require(throws: CSVError.self) { try RecordingCSV.rows(in: text, file: "alice.csv") }
        #expect(error.file == "alice.csv")
        #expect(error.line == 1)
        #expect(error.reason.contains(missing))
        #expect(error.description.hasPrefix("alice.csv:1: "))
    }
}

@Suite struct RecordingCSVMalformedLineTests {
    /// A file with a header and three good rows, with `line` (1-based, counting the header) replaced.
    private func file(replacingLine line: Int, with text: (String) -> String) -> String {
        var lines = [RecordingCSV.header] + (1...3).map { RecordingCSV.line(for: simpleRow($0)) }
        lines[line - 1] = text(lines[line - 1])
        return lines.joined(separator: "\n")
    }

    private func error(in text: String) throws -> CSVError {
        try #require(throws: CSVError.self) { try RecordingCSV.rows(in: text, file: "bob-rec.csv") }
    }

    @Test func lineWithAFieldTooFewNamesFileAndLine() throws {
        let e = try error(in: file(replacingLine: 3) { String($0[..<$0.lastIndex(of: ",")!]) })
        #expect(e.file == "bob-rec.csv")
        #expect(e.line == 3)
        #expect(e.reason.contains("expected 21"))
        #expect(e.reason.contains("found 20"))
        #expect(e.description == "bob-rec.csv:3: \(e.reason)")
    }

    @Test func lineWithAFieldTooManyNamesFileAndLine() throws {
        let e = try error(in: file(replacingLine: 4) { $0 + ",1.0" })
        #expect(e.line == 4)
        #expect(e.reason.contains("found 22"))
        #expect(e.description.hasPrefix("bob-rec.csv:4: "))
    }

    private func replacing(_ column: String, with text: String) -> (String) -> String {
        { line in
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[RecordingCSV.columns.firstIndex(of: column)!] = text
            return fields.joined(separator: ",")
        }
    }

    @Test func nonNumericValueNamesTheColumnAndTheText() throws {
        let e = try error(in: file(replacingLine: 2, with: replacing("gravZ", with: "abc")))
        #expect(e.line == 2)
        #expect(e.reason.contains("gravZ"))
        #expect(e.reason.contains("'abc'"))
        #expect(e.description.hasPrefix("bob-rec.csv:2: "))
    }

    @Test func aHugeOrNulFilledFieldGivesAShortOneLineError() throws {
        let huge = try error(
            in: file(replacingLine: 2, with: replacing("gravZ", with: String(repeating: "9", count: 100) + "x")))
        #expect(huge.reason == "gravZ '\(String(repeating: "9", count: 40))… (101 bytes)' is not a number")
        let nul = try error(
            in: file(replacingLine: 2, with: replacing("gravZ", with: String(repeating: "1", count: 70) + "\u{0}5")))
        #expect(nul.reason.contains("is not a number"))
        #expect(!nul.reason.contains("\u{0}"))
        let session = try error(in: file(replacingLine: 3, with: replacing("sessionId", with: "s\u{0}1")))
        #expect(session.reason == "sessionId 's\\01' holds a control character")
        let time = try error(in: file(replacingLine: 3, with: replacing("timestamp", with: "inf")))
        #expect(time.reason == "timestamp 'inf' is not a finite number of seconds")
    }

    @Test func aLabelOrSessionThatIsNotUTF8NamesItsLine() throws {
        for (column, line, reason) in [
            ("activity", 2, "activity is not UTF-8 text"), ("sessionId", 3, "sessionId is not UTF-8 text"),
        ] {
            let marked = file(replacingLine: line, with: replacing(column, with: "w\u{1}"))
            let bytes = Array(marked.utf8).map { $0 == 0x01 ? 0xE9 : $0 }
            let e = try #require(throws: CSVError.self) {
                try bytes.withUnsafeBufferPointer { try RecordingCSV.rows(inUTF8: $0, file: "bob-rec.csv") }
            }
            #expect(e.description == "bob-rec.csv:\(line): \(reason)")
        }
    }

    @Test func emptyNumberIsAnError() throws {
        let e = try error(in: file(replacingLine: 3, with: replacing("rotY", with: "")))
        #expect(e.line == 3)
        #expect(e.reason.contains("rotY ''"))
    }

    @Test func badActivityOrEmptySessionIsAnError() throws {
        let activity = try error(in: file(replacingLine: 2, with: replacing("activity", with: "re st")))
        #expect(activity.line == 2)
        #expect(activity.reason.contains("activity"))
        let session = try error(in: file(replacingLine: 3, with: replacing("sessionId", with: "")))
        #expect(session.line == 3)
        #expect(session.reason.contains("sessionId"))
    }

    @Test func lineNumbersCountBlankLinesAndCRLF() throws {
        let good = RecordingCSV.line(for: simpleRow(1))
        let text = [RecordingCSV.header, good, "", good, "x,y"].joined(separator: "\r\n")
        let e = try error(in: text)
        #expect(e.line == 5)
    }
}

@Suite struct BookFormatTests {
    /// A line of the book's format: session, activity code and twelve features.
    private func bookLine(_ session: String, _ code: String, _ features: [Double]) -> String {
        ([session, code] + features.map { "\($0)" }).joined(separator: ",")
    }

    private func features(_ k: Double) -> [Double] {
        [
            0.1 * k, -0.2, 0.3, // roll pitch yaw
            1.5, -2.5, 0.125, // rotation rate
            0.25 + k / 100, -0.5, 0.75, // gravity
            0.01, 0.02 * k, -0.03,
        ] // user acceleration
    }

    @Test func codesMapToRestDriveShakeChop() throws {
        let text = (0..<4).map { bookLine("s-1", "\($0)", features(Double($0))) }.joined(separator: "\n")
        let rows = try RecordingCSV.rows(in: text, file: "book.csv")
        #expect(rows.map(\.activity) == [.rest, .drive, .shake, .chop])
    }

    @Test func featuresAreReadInTheBooksOrder() throws {
        let text = bookLine("s-1", "2", features(3))
        let row = try #require(try RecordingCSV.rows(in: text, file: "book.csv").first)
        #expect(row.session == SessionID(rawValue: "s-1"))
        #expect(row.motion.attitude == Attitude(roll: 0.1 * 3, pitch: -0.2, yaw: 0.3))
        #expect(row.motion.rotationRate == Vector3(1.5, -2.5, 0.125))
        #expect(row.motion.gravity == Vector3(0.25 + 3.0 / 100, -0.5, 0.75))
        #expect(row.motion.userAcceleration == Vector3(0.01, 0.02 * 3, -0.03))
    }

    @Test func rawReadingsAreRebuiltFromTheFeatures() throws {
        let text = (0..<5).map { bookLine("s-1", "1", features(Double($0))) }.joined(separator: "\n")
        for (k, row) in try RecordingCSV.rows(in: text, file: "book.csv").enumerated() {
            let f = features(Double(k))
            #expect(row.rawAcceleration == Vector3(f[6] + f[9], f[7] + f[10], f[8] + f[11]))
            #expect(row.rawRotationRate == Vector3(f[3], f[4], f[5]))
        }
    }

    @Test func timestampsCountSamplesAt25HzWithinEachSession() throws {
        let sessions = ["a-1", "a-1", "b-2", "a-1", "b-2", "c-1", "a-1"]
        let text = sessions.map { bookLine($0, "0", features(1)) }.joined(separator: "\n") + "\n"
        let rows = try RecordingCSV.rows(in: text, file: "book.csv")
        let expected = [0, 1, 0, 2, 1, 0, 3].map { Double($0) / 25 }
        #expect(rows.map(\.timestamp) == expected)
        #expect(rows.map(\.session.rawValue) == sessions)
    }

    @Test func crlfBookFileIsRead() throws {
        let text = (0..<3).map { bookLine("s-1", "3", features(Double($0))) }.joined(separator: "\r\n") + "\r\n"
        let rows = try RecordingCSV.rows(in: text, file: "book.csv")
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.activity == .chop })
    }

    @Test(arguments: ["7", "-1", "4", "x", "1.0", ""])
    func unknownActivityCodeIsAnErrorNamingTheLine(_ code: String) throws {
        let lines = [
            bookLine("s-1", "0", features(0)), bookLine("s-1", code, features(1)), bookLine("s-1", "1", features(2)),
        ]
        let error = try #require(throws: CSVError.self) {
            try RecordingCSV.rows(in: lines.joined(separator: "\n"), file: "book.csv")
        }
        #expect(error.file == "book.csv")
        #expect(error.line == 2)
        #expect(error.reason.contains("'\(code)'"))
        #expect(error.description.hasPrefix("book.csv:2: "))
    }

    @Test func bookLineWithWrongFieldCountIsAnError() throws {
        let lines = [bookLine("s-1", "0", features(0)), bookLine("s-1", "0", Array(features(1).dropLast()))]
        let error = try #require(throws: CSVError.self) {
            try RecordingCSV.rows(in: lines.joined(separator: "\n"), file: "book.csv")
        }
        #expect(error.line == 2)
        #expect(error.reason.contains("14"))
        #expect(error.reason.contains("13"))
    }

    @Test func nonNumericBookFeatureNamesTheFeature() throws {
        var line = bookLine("s-1", "0", features(0)).split(separator: ",").map(String.init)
        line[2 + 7] = "?" // gravY
        let error = try #require(throws: CSVError.self) {
            try RecordingCSV.rows(in: line.joined(separator: ","), file: "book.csv")
        }
        #expect(error.line == 1)
        #expect(error.reason.contains("gravY"))
    }
}
