import Foundation
import GestureArchive
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

private func environment(crashingAfterStep step: Int) -> [String: String] {
    ProcessInfo.processInfo.environment.merging(["GESTURE_CRASH_AFTER_STEP": "\(step)"]) { $1 }
}

/// Starts a real-time recording of three takes and returns once its first take has rows in the file.
private func startRecording(in folder: TemporaryFolder, output: Pipe? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: gestureExecutable)
    process.arguments = [
        "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "3", "--quiet", "--keep",
    ]
    process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
    process.standardOutput = output ?? FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.runDyingWithTests()
    let file = folder.path.appending("recordings/ann-recordings.csv").string
    while process.isRunning, ((try? String(contentsOfFile: file, encoding: .utf8))?.count ?? 0) < 50_000 {
        usleep(20_000)
    }
    return process
}

/// Faults a person or the machine can cause, each run against the built `gesture`.
@Suite struct FaultTests {
    /// Stops discard and restore dead (SIGKILL) after each of their durable steps in turn; after
    /// each stop, `check` names what is unfinished and `check --repair` finishes it, and every row
    /// is in exactly one file throughout.
    @Test(arguments: ["discard", "restore"])
    func aCommandKilledAfterAnyStepIsRepairedWithoutLosingARow(command: String) async throws {
        let template = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 3), in: template.recordings)
        let target = outcome.sessions[1].id.rawValue
        if command == "restore" {
            try Archive(folder: template.recordings).discard([outcome.sessions[1].id], reason: "before")
        }
        let before = try recordingLines(in: template.recordings)
        let arguments = command == "discard" ? ["discard", target, "--reason", "test"] : ["restore", target]
        var step = 1
        while true {
            let folder = try TemporaryFolder()
            try FileManager.default.removeItem(atPath: folder.path.string)
            try FileManager.default.copyItem(atPath: template.path.string, toPath: folder.path.string)
            let result = try runGesture(arguments, in: folder.path, environment: environment(crashingAfterStep: step))
            if result.status == 0 { break }
            #expect(result.status == SIGKILL, "step \(step): \(result.error)")
            let check = try runGesture(["check"], in: folder.path)
            #expect(check.status == 0 || check.output.contains("--repair will"), "step \(step): \(check.output)")
            let repair = try runGesture(["check", "--repair"], in: folder.path)
            #expect(repair.status == 0, "step \(step): \(repair.output)\(repair.error)")
            #expect(try recordingLines(in: folder.recordings) == before, "step \(step)")
            let sessions = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output
            #expect(sessions.contains(command == "discard" ? "\"discarded\"" : "\"kept\""), "step \(step)")
            step += 1
        }
        #expect(step == 4, "a discard or restore has three durable steps: the catalog, then each file")
    }

    /// A long-format file of three users with two sessions each.
    private func writeLongFormat(in folder: TemporaryFolder) throws -> [String] {
        var lines = ["who,take,what,x,y,z,gx,gy,gz"]
        for user in ["ann", "ben", "cat"] {
            for take in 1...2 {
                for k in 0..<20 { lines.append("\(user),\(take),wave,0,\(Double(k) / 20),1,0,0,0") }
            }
        }
        let path = folder.path.appending("other.csv").string
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        // The catalog dates imported sessions by their file.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_800_000_000)], ofItemAtPath: path)
        return [
            "import", "other.csv", "--sample-rate", "20",
            "--map", "user=who,session=take,label=what,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz",
        ]
    }

    /// Stops an import dead after each durable step (each user's file, then the catalog); `check`
    /// names what is missing, and running the import again finishes it, to the same files and
    /// catalog as an import that was never stopped.
    @Test func anImportKilledAfterAnyStepIsFinishedByRunningItAgain() throws {
        let clean = try TemporaryFolder()
        let arguments = try writeLongFormat(in: clean)
        try runGesture(arguments, in: clean.path).succeeded()
        let expected = try recordingLines(in: clean.recordings)
        let sessions = try runGesture(["sessions", "--json"], in: clean.path).succeeded().output
        var step = 1
        while true {
            let folder = try TemporaryFolder()
            _ = try writeLongFormat(in: folder)
            let result = try runGesture(arguments, in: folder.path, environment: environment(crashingAfterStep: step))
            if result.status == 0 { break }
            #expect(result.status == SIGKILL, "step \(step): \(result.error)")
            if step < 4 { #expect(try runGesture(["check"], in: folder.path).status == 1, "step \(step)") }
            let again = try runGesture(arguments, in: folder.path).succeeded()
            #expect(again.output.contains(step < 4 ? "imported 6 sessions" : "was imported already"), "step \(step)")
            #expect(try recordingLines(in: folder.recordings) == expected, "step \(step)")
            #expect(try runGesture(["sessions", "--json"], in: folder.path).succeeded().output == sessions)
            try runGesture(["check"], in: folder.path).succeeded()
            step += 1
        }
        #expect(step == 5, "an import of three users has four durable steps")
    }

    @Test func twoImportsOfTheSameFileAtOnceImportItOnce() throws {
        let folder = try TemporaryFolder()
        let arguments = try writeLongFormat(in: folder)
        let results = try [0, 1].map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: gestureExecutable)
            process.arguments = arguments
            process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runDyingWithTests()
            return process
        }
        for process in results {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        #expect(try recordingLines(in: folder.recordings).values.allSatisfy { $0 == 1 })
        #expect(try recordingLines(in: folder.recordings).count == 120)
        try runGesture(["check"], in: folder.path).succeeded()
    }

    @Test func aRecordingKilledMidTakeIsExplainedAndRepairedByCheck() throws {
        let folder = try TemporaryFolder()
        let process = try startRecording(in: folder)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let check = try runGesture(["check"], in: folder.path)
        #expect(check.status == 1)
        #expect(check.output.contains("is still marked as being recorded, but no gesture process records it"))
        let repair = try runGesture(["check", "--repair"], in: folder.path)
        #expect(repair.status == 0, "\(repair.output)\(repair.error)")
        let rows = try readRows(folder.path.appending("recordings/ann-recordings.csv"))
        let records = try Catalog(path: folder.path.appending("recordings/catalog.sqlite").string).sessions()
        #expect(records.map(\.sampleCount).reduce(0, +) == rows.count)
        #expect(records.allSatisfy { !($0.status == .incomplete && $0.reason == "recording") })
    }

    @Test func aClosedOutputPipeStopsTheRecordingLikeCtrlC() throws {
        let folder = try TemporaryFolder()
        let output = Pipe()
        let process = try startRecording(in: folder, output: output)
        try output.fileHandleForReading.close()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + SIGPIPE)
        let records = try Catalog(path: folder.path.appending("recordings/catalog.sqlite").string).sessions()
        #expect(records.last?.reason == "interrupted by SIGPIPE")
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    @Test(arguments: [["sessions"], ["check"], ["discard", "x", "--reason", "r"], ["restore", "x"]])
    func aMissingRecordingsFolderIsSaidSo(arguments: [String]) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(arguments, in: folder.path)
        #expect(result.status != 0)
        #expect(result.error == "gesture: no recordings folder at recordings\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path.appending("recordings").string))
    }

    @Test func appendingToAFileWhoseLastRowLacksItsNewlineAddsItFirst() throws {
        let folder = try TemporaryFolder()
        let record = [
            "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--quiet",
            "--keep",
        ]
        try runGesture(record, in: folder.path).succeeded()
        let file = folder.path.appending("recordings/ann-recordings.csv").string
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let rows = try readRows(FilePath(file)).count
        try String(text.dropLast()).write(toFile: file, atomically: true, encoding: .utf8)
        try runGesture(record + ["--append", "--seed", "2"], in: folder.path).succeeded()
        #expect(try readRows(FilePath(file)).count == 2 * rows)
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    @Test func appendingToAFileThatEndsInHalfARowIsRefusedAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let record = [
            "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--quiet",
            "--keep",
        ]
        try runGesture(record, in: folder.path).succeeded()
        let file = folder.path.appending("recordings/ann-recordings.csv").string
        let text = try String(contentsOfFile: file, encoding: .utf8) + "2027-01-01T00:00:00.000Z-9,chop,0.1"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runGesture(record + ["--append"], in: folder.path)
        #expect(result.status != 0)
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(result.error.contains("ann-recordings.csv: its last line is not a whole row"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == text)
        let repair = try runGesture(["check", "--repair"], in: folder.path)
        #expect(repair.status == 0, "\(repair.output)\(repair.error)")
        try runGesture(record + ["--append"], in: folder.path).succeeded()
    }
}

/// A file system of the test's own that fills up: a small tmpfs mounted in a private mount
/// namespace (`unshare`), where the machine allows it, as root or as a user with user namespaces.
private let mountsOfItsOwn =
    (try? runGesture(
        ["--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], in: FilePath("/"),
        executable: "/usr/bin/unshare"))?.status == 0

@Suite struct FullDiskTests {
    /// The disk fills up in the middle of a recording: the command says how many rows it saved,
    /// exactly as many as the file holds, never half a row; once there is room again, `check
    /// --repair` brings the catalog into line with the file.
    @Test(.enabled(if: mountsOfItsOwn, "this machine lets no test mount a file system of its own"))
    func aDiskThatFillsDuringARecordingLosesNoRowAndMiscountsNone() throws {
        let folder = try TemporaryFolder()
        let disk = folder.path.appending("disk"), kept = folder.path.appending("kept")
        try FileManager.default.createDirectory(atPath: disk.string, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: kept.string, withIntermediateDirectories: true)
        // What happens on the small disk is copied out before its namespace, and the disk, go away.
        let script = """
            set -e
            mount -t tmpfs -o size=1m tmpfs "$DISK"
            cd "$DISK"
            "$GESTURE" record --device sim --user ann --gesture shake --takes 1 --fast --quiet </dev/null >/dev/null
            free=$(df -k --output=avail . | tail -1)
            dd if=/dev/zero of=filler bs=1k count=$((free - 200)) 2>/dev/null
            set +e
            "$GESTURE" record --device sim --user ann --gesture shake --takes 3 --fast --quiet --append </dev/null \
                >"$KEPT/record.out" 2>"$KEPT/record.err"
            echo $? >"$KEPT/record.status"
            rm filler
            "$GESTURE" check --repair >"$KEPT/repair.out" 2>&1
            echo $? >"$KEPT/repair.status"
            cp -r recordings "$KEPT/"
            """
        let environment = ProcessInfo.processInfo.environment.merging(
            ["DISK": disk.string, "KEPT": kept.string, "GESTURE": gestureExecutable]) { $1 }
        try runGesture(
            ["--map-root-user", "--mount", "sh", "-c", script], in: folder.path, environment: environment,
            executable: "/usr/bin/unshare"
        ).succeeded()
        let read = { (name: String) in try String(contentsOfFile: kept.appending(name).string, encoding: .utf8) }
        #expect(try read("record.status") == "1\n")
        let error = try read("record.err")
        #expect(error.contains("No space left on device"), "\(error)")
        let saved = try #require(error.firstMatch(of: /(\d+) rows saved/).flatMap { Int($0.1) }, "\(error)")
        let recordings = RecordingsFolder(kept.appending("recordings"))
        let rows = try readRows(recordings.root.appending("ann-recordings.csv"))
        let first = rows[0].session
        #expect(rows.filter { $0.session != first }.count == saved)
        let repair = try read("repair.out")
        #expect(try read("repair.status") == "0\n", "\(repair)")
        let sessions = try Archive(folder: recordings).catalog.sessions()
        #expect(
            sessions.map(\.sampleCount) == Dictionary(grouping: rows, by: \.session).values.map(\.count).sorted(by: >))
        #expect(try Archive(folder: recordings).check().isConsistent)
    }
}
