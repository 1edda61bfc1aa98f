import Foundation
import GestureCore
import GestureRecording
import GestureSensors
import Testing
import struct SystemPackage.FilePath

/// A fresh folder under the system's temporary folder, removed when the value goes away.
final class TemporaryFolder: Sendable {
    let path: FilePath

    init() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gesturelab-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = FilePath(url.path)
    }

    var recordings: RecordingsFolder { RecordingsFolder(path.appending("recordings")) }

    deinit { try? FileManager.default.removeItem(atPath: path.string) }
}

func plan(_ user: String = "alice", _ gesture: String = "shake", takes: Int = 2, take: Double = 2, rest: Double = 1) throws -> SessionPlan {
    try SessionPlan(user: UserID(user), gesture: ActivityLabel(gesture), takes: takes, take: take, rest: rest,
                    getReady: 1, countdown: 3, intro: 2)
}

/// Records a plan on the simulated sensor in simulated time, prompts discarded.
@discardableResult
func recordFast(_ plan: SessionPlan, in folder: RecordingsFolder, rate: Double = 100, seed: UInt64 = 1,
                faults: SimulatedFaults = .none, date: Date = Date(timeIntervalSince1970: 1_800_000_000)) async throws -> RecordingOutcome {
    let sensor = SimulatedSensor(seed: seed, holder: plan.user, faults: faults)
    let recorder = try SessionRecorder(plan: plan, sensor: sensor, clock: ManualClock(), rate: rate, folder: folder)
    let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
    let outcome = await recorder.run(speech: speech, startDate: date)
    await speech.finish()
    return outcome
}

func readRows(_ path: FilePath) throws -> [RecordingRow] {
    try RecordingCSV.rows(in: String(contentsOfFile: path.string, encoding: .utf8), file: path.string)
}

/// The `gesture` executable built beside this test bundle.
/// An executable the package builds, from the folder the tests were built into.
func builtExecutable(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}

let gestureExecutable = builtExecutable("gesture")

/// A finished child process: its exit code or signal, and what it printed.
struct ProcessResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs `gesture` (or another of the package's executables) with the arguments in `folder`, standard input closed.
func runGesture(_ arguments: [String], in folder: FilePath, environment: [String: String]? = nil,
                shell prefix: String? = nil, executable: String = gestureExecutable) throws -> ProcessResult {
    let process = Process()
    if let prefix {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(prefix); exec \"$0\" \"$@\"", executable] + arguments
    } else {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    }
    process.currentDirectoryURL = URL(fileURLWithPath: folder.string)
    if let environment { process.environment = environment }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                         error: String(decoding: err, as: UTF8.self))
}
