import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// The `gesture` executable as a person or a script runs it, in a child process.
@Suite struct RecordCommandTests {
    @Test(arguments: [
        (["--user", "", "--gesture", "shake"], "user ID is empty"),
        (["--user", "a/b", "--gesture", "shake"], "user ID 'a/b' contains '/'"),
        (["--user", "a-b", "--gesture", "shake"], "contains '-'"),
        (["--user", "ann", "--gesture", "x/y"], "gesture 'x/y' contains '/'"),
        (["--user", "ann", "--gesture", ""], "gesture is empty"),
        (["--user", "ann", "--gesture", "shake", "--rate", "0"], "rate 0"),
        (["--user", "ann", "--gesture", "shake", "--rate", "5000"], "exceeds the device's maximum"),
        (["--user", "ann", "--gesture", "shake", "--recordings", "/proc/nowhere"], "/proc/nowhere"),
        (["--user", "ann", "--gesture", "shake", "--device", "nope"], "devices here: sim"),
        (["--user", "ann", "--gesture", "shake", "--sim-faults", "sneeze"], "unknown fault 'sneeze'"),
        (["--user", "ann", "--gesture", "shake", "--sim-everyday", "jog"], "unknown everyday motion 'jog'"),
        (["--user", "ann", "--gesture", "shake", "--takes", "1000000000"], "takes must be from 1 to 1000"),
        (["--user", "ann", "--gesture", "shake", "--take", "1e12"], "take must be from 0 to 3600 seconds"),
        (
            ["--user", "ann", "--gesture", "shake", "--recordings", "/etc/hostname"],
            "/etc/hostname is a file, not a folder"
        ),
    ])
    func badInputIsOneLineAndExitCodeTwoBeforeSampling(arguments: [String], message: String) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["record", "--device", "sim", "--fast", "--quiet", "--keep"] + arguments, in: folder.path)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("gesture: "))
        #expect(result.error.contains(message))
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: folder.path.appending("recordings/ann-recordings.csv").string))
    }

    @Test func appendingToAnExistingUserAsksFirst() throws {
        let folder = try TemporaryFolder()
        let record = [
            "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--quiet",
            "--keep",
        ]
        #expect(try runGesture(record, in: folder.path).status == 0)
        let file = folder.path.appending("recordings/ann-recordings.csv").string
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let refused = try runGesture(record, in: folder.path)
        #expect(refused.status == 2)
        #expect(refused.error.contains("pass --append"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
        #expect(try runGesture(record + ["--append"], in: folder.path).status == 0)
        #expect(try readRows(FilePath(file)).count == 2 * (try readRows(FilePath(file)).count / 2))
    }

    @Test func readingsLostDuringATakeAreCountedInAWarning() throws {
        let folder = try TemporaryFolder()
        func record(_ user: String, _ extra: [String] = []) throws -> (warnings: String, rows: Int) {
            let result = try runGesture(
                [
                    "record", "--device", "sim", "--user", user, "--gesture", "chop", "--takes", "1", "--fast",
                    "--quiet", "--keep",
                ] + extra, in: folder.path
            ).succeeded()
            return (result.error, try readRows(folder.path.appending("recordings/\(user)-recordings.csv")).count)
        }
        let clean = try record("ann")
        #expect(!clean.warnings.contains("lost"))
        let lossy = try record("bob", ["--sim-faults", "dropped"])
        #expect(lossy.rows < clean.rows)
        #expect(lossy.warnings.contains("sim: \(clean.rows - lossy.rows) readings lost"))
    }

    @Test func discardAtTheEndMovesTheTakesAside() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "drive", "--takes", "2", "--fast", "--quiet",
                "--discard",
            ],
            in: folder.path)
        #expect(result.status == 0)
        #expect(result.output.contains("gesture restore"))
        let sessions = try runGesture(["sessions", "--status", "discarded"], in: folder.path)
        #expect(sessions.output.contains("2 sessions"))
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    /// Synchronous on purpose: an async test's sleep can wait long for a thread of the shared pool while
    /// other tests block theirs on child processes, and the signal would come after the recording ended.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")])
    func aSignalMidTakeKeepsEveryCompleteRowAndMarksTheTakeIncomplete(signal: Int32, name: String) throws {
        let folder = try TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = [
            "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "3", "--take", "5",
            "--quiet", "--keep",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runDyingWithTests()
        let file = folder.path.appending("recordings/ann-recordings.csv").string
        // Wait until the first take is being written (intro 2 s, then rows every second).
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, ((try? String(contentsOfFile: file, encoding: .utf8))?.count ?? 0) < 100_000 {
            usleep(100_000)
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 128 + signal)

        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let rows = try readRows(FilePath(file))
        let catalog = try Catalog(path: folder.path.appending("recordings/catalog.sqlite").string)
        let records = try catalog.sessions()
        #expect(records.last?.status == .incomplete)
        #expect(records.last?.reason == "interrupted by \(name)")
        #expect(records.map(\.sampleCount).reduce(0, +) == rows.count)
        #expect(try runGesture(["check"], in: folder.path).status == 0)
    }

    /// A `--fast` recording runs far ahead of real time: the signal must stop it within a few
    /// readings of being delivered, not after a backlog (it once went on for 2–3 times the rows
    /// written before it), and long before its hour-long take would end.
    @Test func aSignalStopsAFastRecordingAtOnce() throws {
        let folder = try TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = [
            "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "1", "--take", "3600",
            "--fast", "--quiet",
            "--keep",
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runDyingWithTests()
        let file = folder.path.appending("recordings/ann-recordings.csv")
        var written = 0
        while process.isRunning, written < 1_000_000 {
            usleep(10_000)
            written = (try? FileManager.default.attributesOfItem(atPath: file.string)[.size] as? Int) ?? 0
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGINT)
        let rows = try readRows(file).count
        let rowsBefore = written / 380
        #expect(rows < rowsBefore + 2_000, "\(rowsBefore) rows before the signal, \(rows) after")
        let records = try Catalog(path: folder.path.appending("recordings/catalog.sqlite").string).sessions()
        #expect(records.map(\.sampleCount) == [rows])
    }

    @Test func aFullDiskEndsTheRecordingWithoutAHalfLine() throws {
        let folder = try TemporaryFolder()
        // The shell limits files to 100 blocks and ignores SIGXFSZ, so writes past it fail like a full disk.
        let result = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "3", "--fast", "--quiet",
                "--keep",
            ],
            in: folder.path, shell: "trap '' XFSZ; ulimit -f 100")
        #expect(result.status == 1)
        #expect(result.error.contains("ann-recordings.csv"))
        let file = folder.path.appending("recordings/ann-recordings.csv")
        let text = try String(contentsOfFile: file.string, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let rows = try readRows(file)
        #expect(rows.count > 0)
        let records = try Catalog(path: folder.path.appending("recordings/catalog.sqlite").string).sessions()
        #expect(records.last?.status == .incomplete)
        #expect(records.map(\.sampleCount).reduce(0, +) == rows.count)
    }

    @Test func withoutEspeakThePromptsArePrintedAfterOneWarning() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "2", "--fast", "--keep"],
            in: folder.path, environment: ["PATH": "/nonexistent"])
        #expect(result.status == 0)
        #expect(
            result.error
                == "gesture: warning: espeak-ng was not found; prompts are printed instead (apt-get install espeak-ng)\n"
        )
        #expect(result.output.contains("» Get ready to shake"))
        #expect(result.output.contains("» Session complete"))
    }

    @Test func promptsAreWrittenAsWavFilesByEspeak() throws {
        let folder = try TemporaryFolder()
        let wavs = folder.path.appending("prompts")
        let result = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--keep",
                "--speech-to", wavs.string,
            ], in: folder.path)
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: wavs.string).sorted()
        #expect(names.first == "001-session-start-1-take-of-chop.wav")
        #expect(names.contains("002-get-ready-to-chop.wav"))
        #expect(names.count == 9)
        for name in names {
            let soxi = try runGesture(
                ["-D", wavs.appending(name).string], in: folder.path, executable: "/usr/bin/soxi")
            let seconds = Double(soxi.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect((seconds ?? 0) > 0.1, "\(name)")
        }
    }

    @Test func promptsThatCannotBeWrittenAreSaidOnceAndTheTakeIsStillRecorded() throws {
        let folder = try TemporaryFolder()
        let blocker = folder.path.appending("not-a-folder")
        try Data("a file".utf8).write(to: URL(fileURLWithPath: blocker.string))
        let result = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--fast", "--keep",
                "--speech-to", blocker.appending("prompts").string,
            ], in: folder.path)
        #expect(result.status == 0)
        let warnings = result.error.split(separator: "\n").filter { $0.contains("espeak-ng could not write") }
        #expect(warnings.count == 1, "\(result.error)")
        #expect(warnings.first?.contains(blocker.appending("prompts").string) == true)
        #expect(
            try readRows(folder.path.appending("recordings/ann-recordings.csv")).contains {
                $0.activity.rawValue == "chop"
            })
    }
}

@Suite struct ReplayRecordingTests {
    @Test func aReplayedRecordingIsRecordedAgainSampleForSample() throws {
        let folder = try TemporaryFolder()
        let common = ["--gesture", "chop", "--take", "2", "--rest", "1", "--fast", "--quiet", "--keep"]
        #expect(
            try runGesture(["record", "--device", "sim", "--user", "ann", "--takes", "2"] + common, in: folder.path)
                .status == 0)
        let original = try readRows(folder.path.appending("recordings/ann-recordings.csv"))
        let replay = try runGesture(
            ["record", "--user", "bob", "--takes", "1", "--device", "replay:recordings/ann-recordings.csv"] + common,
            in: folder.path)
        #expect(replay.status == 0, "\(replay.error)")
        let copy = try readRows(folder.path.appending("recordings/bob-recordings.csv"))
        // Two 7.5 s takes replayed into one: the new intro plays the first 2 s, the take the next 7.5.
        #expect(copy.count == 750)
        #expect(copy.map(\.rawAcceleration).elementsEqual(original[200..<950].map(\.rawAcceleration)))
        #expect(copy.map(\.rawRotationRate).elementsEqual(original[200..<950].map(\.rawRotationRate)))
    }
}

@Suite struct DeviceCommandTests {
    @Test func aMalformedProfileIsOneLineNamingFileLineAndField() throws {
        let folder = try TemporaryFolder()
        let profiles = folder.path.appending("profiles")
        try FileManager.default.createDirectory(atPath: profiles.string, withIntermediateDirectories: true)
        try "match = iio:*\naxes = x x z\n".write(
            toFile: profiles.appending("bad.profile").string, atomically: true, encoding: .utf8)
        for arguments in [
            ["devices"],
            ["record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--fast", "--quiet", "--keep"],
        ] {
            let result = try runGesture(arguments + ["--profiles", "profiles"], in: folder.path)
            #expect(result.status == 2)
            #expect(result.error.hasPrefix("gesture: profiles/bad.profile:2: axes: expected x, y and z"))
            #expect(result.error.split(separator: "\n").count == 1)
        }
    }

    @Test func devicesListsTheSimulatedSensorAsJSON() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(["devices", "--json"], in: folder.path)
        #expect(result.status == 0)
        let first = try #require(result.output.split(separator: "\n").first)
        let device = try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any]
        #expect(device?["id"] as? String == "sim")
    }
}
