import GestureCore
import Testing

/// Reading a file in pieces, as the loader does on several processors, gives what reading it whole does.
@Suite struct PiecewiseReadingTests {
    private func rows(_ count: Int) -> [RecordingRow] {
        (0..<count).map { k in
            let v = Double(k) / 7
            return RecordingRow(
                session: SessionID(rawValue: "s-\(k / 10)"), activity: k % 10 < 4 ? .rest : .shake, timestamp: v,
                motion: DeviceMotion(values: (0..<12).map { v + Double($0) }),
                rawAcceleration: Vector3(v, -v, 1), rawRotationRate: Vector3(0, v, -v))
        }
    }

    private func read(_ text: String, pieces: Int) throws(CSVError) -> [RecordingRow] {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(CSVError) in
                try RecordingCSV.rows(inUTF8: bytes, file: "f.csv", pieces: pieces) { count, readPiece in
                    for piece in 0..<count { readPiece(piece) }
                }
            }
        }.get()
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func piecesTogetherAreTheWholeFile(pieces: Int) throws {
        let original = rows(250)
        let text = ([RecordingCSV.header] + original.map(RecordingCSV.line(for:))).joined(separator: "\r\n") + "\r\n"
        #expect(try read(text, pieces: pieces) == original)
        // Without the last line end ("\r\n" is one Character).
        #expect(try read(String(text.dropLast()), pieces: pieces) == original)
    }

    @Test(arguments: [1, 2, 5])
    func anErrorInALaterPieceNamesTheLineInTheWholeFile(pieces: Int) throws {
        var lines = [RecordingCSV.header] + rows(100).map(RecordingCSV.line(for:))
        lines[87] += ",extra"
        let error = try #require(throws: CSVError.self) { try read(lines.joined(separator: "\n"), pieces: pieces) }
        #expect(error.line == 88)
        #expect(error.reason.contains("found 22"))
    }

    @Test func theBooksFormatIsReadInOnePieceSoItsTimestampsCountThroughTheFile() throws {
        let features = Array(repeating: "0.5", count: 12).joined(separator: ",")
        let text = (0..<40).map { "s-\($0 % 3),1,\(features)" }.joined(separator: "\n")
        let whole = try RecordingCSV.rows(in: text, file: "f.csv")
        #expect(try read(text, pieces: 4) == whole)
        #expect(whole.last?.timestamp == 13 / 25.0)
    }
}
