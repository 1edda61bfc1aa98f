import GestureCore
import GestureTestSupport
import Testing

/// Reading a file a block at a time, each block in pieces as the loader does on several
/// processors, gives what reading it whole does.
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

    /// The rows of `text` read from a file in blocks of `blockSize` bytes, each in `pieces` pieces,
    /// and how many batches `read(file:)` handed over.
    private func read(
        _ text: String, pieces: Int, blockSize: Int = 1 << 16, longestLine: Int = 2000
    ) throws -> (rows: [RecordingRow], batches: Int) {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("f.csv").string
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var rows: [RecordingRow] = []
        var batches = 0
        try RecordingCSV.read(file: path, pieces: pieces, blockSize: blockSize, longestLine: longestLine) {
            count, readPiece in
            for piece in 0..<count { readPiece(piece) }
        } _: {
            rows += $0
            batches += 1
        }
        return (rows, batches)
    }

    private func text(_ rows: [RecordingRow], separator: String = "\n") -> String {
        ([RecordingCSV.header] + rows.map(RecordingCSV.line(for:))).joined(separator: separator) + separator
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func piecesTogetherAreTheWholeFile(pieces: Int) throws {
        let original = rows(250)
        let text = text(original, separator: "\r\n")
        #expect(try read(text, pieces: pieces).rows == original)
        // Without the last line end ("\r\n" is one Character).
        #expect(try read(String(text.dropLast()), pieces: pieces).rows == original)
    }

    @Test(arguments: [1, 3])
    func blocksSmallerThanTheFileGiveTheSameRows(pieces: Int) throws {
        let original = rows(250)
        let read = try read(text(original), pieces: pieces, blockSize: 5000)
        #expect(read.rows == original)
        #expect(read.batches > 10)
    }

    @Test(arguments: [(1, 1 << 16), (2, 1 << 16), (5, 1 << 16), (1, 3000), (4, 3000)])
    func anErrorInALaterBlockOrPieceNamesTheLineInTheWholeFile(pieces: Int, blockSize: Int) throws {
        var lines = [RecordingCSV.header] + rows(100).map(RecordingCSV.line(for:))
        lines[87] += ",extra"
        let error = try #require(throws: RecordingReadError.self) {
            try read(lines.joined(separator: "\n"), pieces: pieces, blockSize: blockSize)
        }
        guard case .malformed(let csv) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(csv.line == 88)
        #expect(csv.reason.contains("found 22"))
    }

    @Test func aLineTooLongToBeARowIsAnErrorNamingItWithoutReadingItWhole() throws {
        var lines = [RecordingCSV.header] + rows(30).map(RecordingCSV.line(for:))
        lines[20] = String(repeating: "9", count: 50_000)
        let error = try #require(throws: RecordingReadError.self) {
            try read(lines.joined(separator: "\n"), pieces: 2, blockSize: 4000, longestLine: 2000)
        }
        #expect(error.description.hasSuffix("f.csv:21: the line is 50000 bytes long: not a recording row"))
    }

    @Test func theBooksFormatIsReadInOnePieceSoItsTimestampsCountThroughTheFile() throws {
        let features = Array(repeating: "0.5", count: 12).joined(separator: ",")
        let text = (0..<40).map { "s-\($0 % 3),1,\(features)" }.joined(separator: "\n")
        let whole = try RecordingCSV.rows(in: text, file: "f.csv")
        #expect(try read(text, pieces: 4, blockSize: 300).rows == whole)
        #expect(whole.last?.timestamp == 13 / 25.0)
    }

    @Test func aMissingFileIsUnreadableByName() throws {
        let error = try #require(throws: RecordingReadError.self) {
            try RecordingCSV.rows(atPath: "/nonexistent/alice.csv")
        }
        #expect(error.description == "cannot read /nonexistent/alice.csv: No such file or directory")
    }
}
