import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// What a newcomer runs into first: no sensor chosen, recordings of two rates, a folder they may
/// only read.
@Suite struct NewcomerTests {
    /// The real sensors `gesture devices` finds here: neither the simulated one nor the phone.
    private func realSensors(in folder: FilePath) throws -> [String] {
        let listed = try runGesture(["devices", "--json"], in: folder).succeeded().output
        return listed.split(separator: "\n").compactMap { $0.firstMatch(of: /"id":"([^"]*)"/).map { String($0.1) } }
            .filter { $0 != "sim" && $0 != "phone" }
    }

    @Test func devicesListsTheSimulatedSensorAndThePhone() throws {
        let folder = try TemporaryFolder()
        let listed = try runGesture(["devices"], in: folder.path).succeeded().output
        let ids = listed.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }
        #expect(ids.first == "sim")
        #expect(ids.last == "phone")
    }

    /// Without `--device`, a command never falls back to the simulated sensor: with no real sensor
    /// it refuses, listing what there is, and records nothing.
    @Test(arguments: [
        ["record", "--user", "ann", "--gesture", "shake", "--fast", "--quiet", "--keep"],
        ["monitor", "--fast", "--seconds", "1"],
        ["detect", "--model", "m.model", "--fast", "--duration", "1"],
        ["play", "--model", "m.model", "--fast", "--quiet"],
    ])
    func withoutADeviceNothingIsSimulatedUnasked(arguments: [String]) throws {
        let folder = try trained
        let fresh = try TemporaryFolder()
        try FileManager.default.copyItem(
            atPath: folder.path.appending("m.model").string, toPath: fresh.path.appending("m.model").string)
        guard try realSensors(in: fresh.path).isEmpty else { return }
        let result = try runGesture(arguments, in: fresh.path)
        #expect(result.status == 2, "\(arguments)")
        #expect(
            result.error.hasPrefix("gesture: no --device given and no sensor found; pass --device with one of: sim ("),
            "\(result.error)")
        #expect(result.error.contains(", phone ("))
        #expect(result.error.hasSuffix(", replay:FILE.csv (a recording played back)\n"))
        #expect(!FileManager.default.fileExists(atPath: fresh.recordings.root.string))
    }

    /// A folder of 25 and 100 Hz sessions: `train` names both rates with their sessions, and the
    /// rate to pass, which then trains.
    @Test func sessionsOfTwoRatesNameTheRatesTheSessionsAndTheRateToPass() throws {
        let folder = try TemporaryFolder()
        for (user, rate) in [("ann", "25"), ("bob", "100")] {
            try runGesture(
                [
                    "record", "--device", "sim", "--user", user, "--gesture", "shake", "--takes", "1", "--take", "2",
                    "--rate", rate, "--fast", "--quiet", "--keep",
                ], in: folder.path
            ).succeeded()
        }
        let refused = try runGesture(["train", "--epochs", "1", "--output", "m.model"], in: folder.path)
        #expect(refused.status == 2)
        #expect(
            refused.error.hasPrefix("gesture: the sessions were recorded at different rates: 25 Hz (1 session: ann 20"))
        #expect(refused.error.contains(") and 100 Hz (1 session: bob 20"))
        #expect(refused.error.hasSuffix("; try --rate 25\n"), "\(refused.error)")
        try runGesture(["train", "--epochs", "1", "--rate", "25", "--output", "m.model"], in: folder.path).succeeded()
    }

    /// A folder others may only read: listing, stats and training read it, and nothing in it changes.
    @Test func aReadOnlyRecordingsFolderCanBeReadListedAndTrainedOn() throws {
        let folder = try TemporaryFolder()
        for user in ["ann", "bob"] {
            for gesture in ["shake", "chop"] {
                try runGesture(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "1", "--take",
                        "2", "--rate", "25", "--fast", "--quiet", "--keep", "--append",
                    ], in: folder.path
                ).succeeded()
            }
        }
        let recordings = folder.recordings.root.string
        let before = try recordingLines(in: folder.recordings)
        try runGesture(["-R", "a-w", recordings], in: folder.path, executable: "/bin/chmod").succeeded()
        defer { _ = try? runGesture(["-R", "u+w", recordings], in: folder.path, executable: "/bin/chmod") }
        try runGesture(["777", folder.path.string], in: folder.path, executable: "/bin/chmod").succeeded()
        // root may write anywhere: as root, run as nobody instead.
        func asReader(_ arguments: [String]) throws -> ProcessResult {
            guard getuid() == 0 else { return try runGesture(arguments, in: folder.path) }
            return try runGesture(
                ["--reuid=65534", "--regid=65534", "--clear-groups", gestureExecutable] + arguments, in: folder.path,
                executable: "/usr/bin/setpriv")
        }
        for arguments in [["sessions"], ["stats"], ["train", "--epochs", "1", "--output", "m.model"]] {
            let result = try asReader(arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
        }
        #expect(try recordingLines(in: folder.recordings) == before)
        let record = try asReader(
            ["record", "--device", "sim", "--user", "cy", "--gesture", "shake", "--fast", "--quiet", "--keep"])
        #expect(record.status == 2)
        #expect(
            record.error.hasPrefix("gesture: the recordings folder recordings is not writable: "), "\(record.error)")
    }
}
