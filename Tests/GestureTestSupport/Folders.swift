import Foundation
import GestureCore
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore

import struct SystemPackage.FilePath

/// A fresh folder under the system's temporary folder, removed when the value goes away.
public final class TemporaryFolder: Sendable {
    public let path: FilePath

    public init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gesturelab-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = FilePath(url.path)
    }

    public var recordings: RecordingsFolder { RecordingsFolder(path.appending("recordings")) }

    deinit { try? FileManager.default.removeItem(atPath: path.string) }
}

public func plan(
    _ user: String = "alice", _ gesture: String = "shake", takes: Int = 2, take: Double = 2, rest: Double = 1
) throws -> SessionPlan {
    try SessionPlan(
        user: UserID(user), gesture: ActivityLabel(gesture), takes: takes, take: take, rest: rest,
        getReady: 1, countdown: 3, intro: 2)
}

/// Records a plan on the simulated sensor in simulated time, prompts discarded.
@discardableResult
public func recordFast(
    _ plan: SessionPlan, in folder: RecordingsFolder, rate: Double = 100, seed: UInt64 = 1,
    faults: SimulatedFaults = .none, date: Date = Date(timeIntervalSince1970: 1_800_000_000)
) async throws -> RecordingOutcome {
    let sensor = SimulatedSensor(seed: seed, holder: plan.user, faults: faults)
    let recorder = try SessionRecorder(plan: plan, sensor: sensor, clock: ManualClock(), rate: rate, folder: folder)
    let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
    let outcome = await recorder.run(speech: speech, startDate: date)
    await speech.finish()
    return outcome
}

public func readRows(_ path: FilePath) throws -> [RecordingRow] {
    try RecordingCSV.rows(atPath: path.string)
}

/// Every line of a recordings folder's CSV files, live, discarded and damaged, with how often it
/// occurs, but the headers: what a change to the folder must keep.
public func recordingLines(in folder: RecordingsFolder) throws -> [Substring: Int] {
    var counts: [Substring: Int] = [:]
    for sub in ["", "discarded", "damaged", "damaged/discarded"] {
        for file in try folder.csvFiles(in: sub.isEmpty ? folder.root : folder.root.appending(sub)) {
            for line in try String(contentsOfFile: file.string, encoding: .utf8).split(separator: "\n")
            where !line.hasPrefix("sessionId,") {
                counts[line, default: 0] += 1
            }
        }
    }
    return counts
}
