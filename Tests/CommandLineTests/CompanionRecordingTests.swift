import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// `gesture record --with`: a second device's readings beside each row of the first's, on the
/// row's time, in a file of their own that every command keeps whole.
@Suite struct CompanionRecordingTests {
    static let record = [
        "record", "--device", "sim", "--with", "sim", "--user", "ann", "--gesture", "shake", "--takes", "2",
        "--fast", "--quiet", "--keep", "--seed", "3",
    ]

    /// The companion's fields of each line, and the first device's that it shares names with.
    static func fields(of line: Substring) -> (own: ArraySlice<Substring>, companion: ArraySlice<Substring>) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        let width = RecordingCSV.columns.count
        return (fields[3..<width], fields[width...])
    }

    @Test func theSecondDevicesReadingsGoBesideEachRowAtItsTime() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(Self.record, in: folder.path)
        #expect(result.status == 0, "\(result.error)")
        let file = folder.recordings.recordingFile(for: try UserID("ann"), companion: "sim")
        #expect(file.lastComponent?.string == "ann-recordings-with-sim.csv")
        #expect(!FileManager.default.fileExists(atPath: folder.recordings.recordingFile(for: try UserID("ann")).string))
        let lines = try String(contentsOfFile: file.string, encoding: .utf8).split(separator: "\n")
        #expect(
            lines[0]
                == Substring(
                    RecordingCSV.header + "," + RecordingCSV.companionColumns(prefix: "sim").joined(separator: ",")))
        #expect(
            lines[0].hasSuffix(
                ",sim.roll,sim.pitch,sim.yaw,sim.rotX,sim.rotY,sim.rotZ,sim.gravX,sim.gravY,sim.gravZ,sim.accelX,sim.accelY,sim.accelZ,sim.rawAccelX,sim.rawAccelY,sim.rawAccelZ,sim.rawGyroX,sim.rawGyroY,sim.rawGyroZ"
            ))
        // The same simulated hand with the same seed, on the same times: each reading twice over.
        for line in lines.dropFirst() {
            let (own, companion) = Self.fields(of: line)
            #expect(Array(own) == Array(companion), "\(line)")
        }
        // Every command reads the rows as the first device's; the catalog counts them.
        let sessions = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(sessions.count == 2 && sessions.allSatisfy { $0.file == "ann-recordings-with-sim.csv" })
        #expect(sessions.map(\.sampleCount).reduce(0, +) == lines.count - 1)
        #expect(try readRows(file).count == lines.count - 1)
        #expect(try runGesture(["check"], in: folder.path).status == 0)
        // A take without --with goes to the user's own file, which keeps its plain header.
        let plain = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--quiet",
                "--keep",
            ],
            in: folder.path)
        #expect(plain.status == 0, "\(plain.error)")
        let own = try String(
            contentsOfFile: folder.recordings.recordingFile(for: try UserID("ann")).string, encoding: .utf8)
        #expect(own.hasPrefix(RecordingCSV.header + "\n"))
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    @Test func discardTrimRelabelAndRestoreKeepTheCompanionsColumns() throws {
        let folder = try TemporaryFolder()
        #expect(try runGesture(Self.record, in: folder.path).status == 0)
        let before = try recordingLines(in: folder.recordings)
        let ids = try Catalog(path: folder.recordings.catalogPath.string).sessions().map(\.id.rawValue)
        let discarded = folder.recordings.discardedFile(
            for: folder.recordings.recordingFile(for: try UserID("ann"), companion: "sim"))
        #expect(try runGesture(["discard", ids[0], "--reason", "test"], in: folder.path).status == 0)
        let header = try String(contentsOfFile: discarded.string, encoding: .utf8).split(separator: "\n")[0]
        #expect(header.hasSuffix(",sim.rawGyroZ"))
        #expect(try recordingLines(in: folder.recordings) == before)
        #expect(try runGesture(["trim", ids[1], "--from", "1", "--to", "5"], in: folder.path).status == 0)
        #expect(
            try runGesture(["relabel", ids[1], "--from", "2", "--to", "3", "--as", "chop"], in: folder.path).status == 0
        )
        #expect(try runGesture(["check"], in: folder.path).status == 0)
        #expect(try runGesture(["undo", ids[1]], in: folder.path).status == 0)
        #expect(try runGesture(["undo", ids[1]], in: folder.path).status == 0)
        #expect(try runGesture(["restore", ids[0]], in: folder.path).status == 0)
        #expect(try recordingLines(in: folder.recordings) == before)
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    @Test(arguments: [
        (["--device", "sim", "--with", "phone", "--fast"], 2, "--fast runs on simulated time"),
        (["--device", "phone", "--with", "phone"], 2, "--with phone: the phone is --device already"),
        (["--device", "sim", "--with", "nope", "--fast"], 2, "devices here: sim"),
    ])
    func aCompanionThatCannotBeRecordedIsOneLine(arguments: [String], status: Int32, message: String) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["record", "--user", "ann", "--gesture", "shake", "--quiet", "--keep", "--port", "0"] + arguments,
            in: folder.path)
        #expect(result.status == status, "\(result.error)")
        #expect(result.error.hasPrefix("gesture: ") && result.error.contains(message), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1, "\(result.error)")
        #expect(try recordingLines(in: folder.recordings).isEmpty)
    }
}
