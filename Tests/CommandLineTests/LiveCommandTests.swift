import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// A model trained once on simulated users ann, ben and cat (shake, chop, drive at 25 Hz), and
/// recordings of zed, a user it never saw: shake and chop at 25 Hz, and chop at 100 Hz and 30 Hz.
let trainedFolder = SharedFixture {
    let folder = try TemporaryFolder()
    func record(_ user: String, _ gesture: String, rate: Int = 25, into recordings: String = "recordings") throws {
        try runGesture(
            [
                "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate", "\(rate)",
                "--fast", "--quiet", "--keep", "--append", "--seed", "3", "--recordings", recordings,
            ],
            in: folder.path
        ).succeeded()
    }
    for user in ["ann", "ben", "cat"] {
        for gesture in ["shake", "chop", "drive"] { try record(user, gesture) }
    }
    try runGesture(["train", "--output", "m.model"], in: folder.path).succeeded()
    try record("zed", "shake", into: "unseen")
    try record("zed", "chop", into: "unseen")
    try record("fast", "chop", rate: 100, into: "unseen")
    try record("odd", "chop", rate: 30, into: "unseen")
    return folder
}

var trained: TemporaryFolder {
    get throws { try trainedFolder.value() }
}

/// The model README's tour trains: four people, three takes of each gesture, split by person.
private let tourModel = SharedFixture {
    let folder = try TemporaryFolder()
    for user in ["ann", "ben", "cat", "dan"] {
        for gesture in ["shake", "chop", "drive"] {
            try runGesture(
                [
                    "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "3", "--fast",
                    "--quiet", "--keep", "--append",
                ], in: folder.path
            ).succeeded()
        }
    }
    try runGesture(["split", "--by", "user", "--seed", "1", "--output", "split.txt"], in: folder.path).succeeded()
    try runGesture(["train", "--manifest", "split.txt", "--output", "tour.model"], in: folder.path).succeeded()
    return folder
}

@Suite struct LiveCommandTests {
    /// Synchronous, as the recording signal tests are: the detector runs in real time on the
    /// simulated sensor, and the signal (Ctrl-C's, or a `kill`'s) comes once it says what it listens to.
    @Test(arguments: [SIGINT, SIGTERM])
    func detectSaysWhatItListensToAndASignalEndsItWithItsExitCode(signal: Int32) throws {
        let folder = try trained
        let log = folder.path.appending("detect-\(UUID().uuidString).log").string
        #expect(FileManager.default.createFile(atPath: log, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = ["detect", "--device", "sim", "--model", "m.model"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.runDyingWithTests()
        while process.isRunning, !((try? String(contentsOfFile: log, encoding: .utf8))?.contains("Ctrl-C") ?? false) {
            usleep(20_000)
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        let notes = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(notes.first == "gesture: listening to sim at 25 Hz for chop, drive, shake; Ctrl-C stops")
        #expect(notes.last?.hasPrefix("gesture: stopped: ") == true, "\(notes)")
    }

    private func detect(_ arguments: [String]) throws -> ProcessResult {
        try runGesture(["detect", "--device", "sim", "--model", "m.model", "--fast"] + arguments, in: trained.path)
    }

    @Test func detectFindsTheGesturesOfAReplayedRecordingOfAnUnseenUser() throws {
        let result = try detect(["--device", "replay:unseen/zed-recordings.csv", "--evaluate"])
        #expect(result.status == 0, "\(result.error)")
        let summary = try #require(result.output.split(separator: "\n").first { $0.contains("gestures:") })
        let numbers = summary.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        // "4 gestures: F found, M missed; X false detections (…)"
        #expect(numbers[0] == 4)
        #expect(numbers[1] >= 3, "\(summary)")
        #expect(numbers[3] <= 1, "\(summary)")
    }

    /// Adapting as it listens re-estimates every 4 s of accepted motion and still finds the gestures.
    @Test func detectAdaptsToTheReplayedUserAndReportsHowOften() throws {
        let result = try detect([
            "--device", "replay:unseen/zed-recordings.csv", "--evaluate", "--adapt", "--adapt-every", "4",
        ])
        #expect(result.status == 0, "\(result.error)")
        let summary = try #require(result.output.split(separator: "\n").first { $0.contains("gestures:") })
        #expect(summary.hasPrefix("4 gestures: "), "\(summary)")
        let note = try #require(result.error.split(separator: "\n").first { $0.contains("adapted batch norm") })
        let numbers = note.split(whereSeparator: { !$0.isNumber && $0 != "." }).compactMap { Double($0) }
        // "adapted batch norm N times on A s of motion the rejection accepted (U s …), every E s of it",
        // E the whole windows nearest 4 s.
        #expect(numbers[0] >= 1 && abs(numbers[3] - 4) < 0.5, "\(note)")
        #expect(abs(numbers[0] - (numbers[1] / numbers[3]).rounded(.down)) <= 1, "\(note)")
        let bad = try detect(["--device", "replay:unseen/zed-recordings.csv", "--adapt", "--adapt-every", "0"])
        #expect(bad.status != 0 && bad.error.contains("--adapt-every 0"))
    }

    /// Two minutes of simulated walking, labeled walk, which the model was never taught: no gesture
    /// to find, and every detection a false one, counted per hour of that unknown motion.
    @Test func motionTheModelDoesNotKnowIsUnknownMotionNotAMissedGesture() throws {
        try runGesture(
            [
                "record", "--device", "sim", "--user", "walker", "--continuous", "--as", "walk", "--sim-everyday",
                "walk", "--seconds", "120", "--rate", "25", "--fast", "--quiet", "--keep", "--recordings", "everyday",
            ], in: trained.path
        ).succeeded()
        let result = try detect(["--device", "replay:everyday/walker-recordings.csv", "--evaluate"])
        #expect(result.status == 0, "\(result.error)")
        let summary = try #require(result.output.split(separator: "\n").first { $0.contains("gestures:") })
        #expect(summary.hasPrefix("0 gestures: 0 found, 0 missed; "), "\(summary)")
        #expect(summary.contains(" per hour over the 0.03"), "\(summary)")
    }

    /// `gesture detect` is the lean gesture-detect executable: it takes the same arguments, help included.
    @Test func detectRunsTheLeanDetectorWithTheSameArguments() throws {
        let help = try runGesture(["detect", "--help"], in: trained.path)
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: gesture detect") && help.output.contains("--threshold"))
        let direct = try runGesture(
            ["detect", "--model", "m.model", "--fast", "--device", "replay:unseen/zed-recordings.csv"],
            in: trained.path)
        let lean = try runGesture(
            ["--model", "m.model", "--fast", "--device", "replay:unseen/zed-recordings.csv"],
            in: trained.path, executable: builtExecutable("gesture-detect"))
        #expect(direct.status == 0 && lean.status == 0)
        #expect(direct.output == lean.output && !lean.output.isEmpty)
    }

    /// Every kernel set this CPU runs detects the same; one it cannot run is a one-line error.
    @Test func theKernelsChosenByNameDetectTheSameAndAnUnknownNameIsRefused() throws {
        let detect = { (kernels: String?) in
            var environment = ProcessInfo.processInfo.environment
            environment["GESTURELAB_KERNELS"] = kernels
            return try runGesture(
                ["detect", "--model", "m.model", "--fast", "--device", "replay:unseen/zed-recordings.csv"],
                in: trained.path, environment: environment)
        }
        let chosen = try detect(nil).succeeded()
        #expect(!chosen.output.isEmpty)
        for kernels in ["portable", "openblas"] {
            #expect(try detect(kernels).succeeded().output == chosen.output, "\(kernels)")
        }
        let unknown = try detect("quantum")
        #expect(unknown.status == 1)
        #expect(
            unknown.error.hasPrefix("gesture: GESTURELAB_KERNELS=quantum is not one this CPU runs (")
                && unknown.error.filter { $0 == "\n" }.count == 1, "\(unknown.error)")
    }

    @Test func detectionsAsJSONLinesNameTimeGestureProbabilityAndRunnerUp() throws {
        let result = try detect(["--device", "replay:unseen/zed-recordings.csv", "--json"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(["shake", "chop", "drive"].contains(object["gesture"] as? String ?? ""))
            #expect((object["probability"] as? Double ?? 0) >= 0.9)
            #expect(object["runnerUp"] is String && object["time"] is Double)
        }
    }

    @Test func aSensorAtAWholeMultipleOfTheModelsRateIsResampledWithAWarning() throws {
        let result = try detect(["--device", "replay:unseen/fast-recordings.csv", "--evaluate"])
        #expect(result.status == 0)
        #expect(result.error.contains("100 Hz, the model at 25 Hz: one reading in 4 is used"))
        #expect(result.output.contains("2 gestures:"))
    }

    @Test(arguments: [
        (
            ["--device", "replay:unseen/odd-recordings.csv"],
            "the sensor runs at 30 Hz and the model was trained at 25 Hz"
        ),
        (
            ["--device", "replay:m.history.csv"],
            "replay:m.history.csv: not a recording: m.history.csv:1: header lacks sessionId"
        ),
        (["--offset", "7"], "the offset 7 must divide the model's window of 20 samples"),
        (["--evaluate"], "--evaluate needs a labeled recording"),
    ])
    func badInputIsOneLineAndExitCodeTwo(arguments: [String], message: String) throws {
        let result = try detect(arguments + ["--duration", "1"])
        #expect(result.status == 2)
        #expect(result.error.contains(message), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1)
    }

    @Test func aModelFileThatIsNotOneIsAClearError() throws {
        try "not a model".write(toFile: trained.path.appending("bad.model").string, atomically: true, encoding: .utf8)
        let result = try runGesture(
            ["detect", "--device", "sim", "--model", "bad.model", "--fast", "--duration", "1"], in: trained.path)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix("gesture: bad.model: "))
    }

    /// The detector keeps its state from call to call, so a player who makes no mistakes wins
    /// every game with the tour's model, and nothing is called after the win.
    @Test(arguments: 1...5)
    func theSimulatedPlayerMakesNoMistakesUnlessAskedAndWins(seed: Int) throws {
        let result = try runGesture(
            [
                "play", "--device", "sim", "--model", "tour.model", "--fast", "--quiet", "--rounds", "5", "--seed",
                "\(seed)",
            ], in: tourModel.value().path)
        #expect(result.status == 0)
        #expect(result.output.hasSuffix("» 5 points. You win!\nfinal score 5 (won)\n"), "\(result.output)")
    }

    @Test func aWrongGestureEndsTheGame() throws {
        let result = try runGesture(
            ["play", "--device", "sim", "--model", "m.model", "--fast", "--quiet", "--mistakes", "1", "--seed", "1"],
            in: trained.path)
        #expect(result.status == 0)
        let last = try #require(result.output.split(separator: "\n").last)
        #expect(last.hasPrefix("final score 0 (saw "))
        #expect(result.output.contains("» (the simulated player makes "))
        #expect(result.output.contains("» Game over. Score: 0"))
    }
}
