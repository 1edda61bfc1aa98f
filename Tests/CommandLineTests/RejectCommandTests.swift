import Foundation
import GestureTestSupport
import Testing

/// ann and ben's shake and chop, and two minutes of each one's everyday motion recorded as
/// background (`--as other`): what `gesture train` learns not to fire on.
private let backgroundFolder = SharedFixture {
    let folder = try TemporaryFolder()
    func record(_ user: String, _ arguments: [String], into recordings: String = "recordings") throws {
        try runGesture(
            ["record", "--device", "sim", "--user", user, "--rate", "25", "--fast", "--quiet", "--keep", "--append"]
                + ["--seed", "3", "--recordings", recordings] + arguments, in: folder.path
        ).succeeded()
    }
    for user in ["ann", "ben"] {
        for gesture in ["shake", "chop"] { try record(user, ["--gesture", gesture, "--takes", "3"]) }
        try record(user, ["--continuous", "--as", "other", "--sim-everyday", "all", "--seconds", "120"])
    }
    try record("cy", ["--continuous", "--as", "other", "--sim-everyday", "all", "--seconds", "120"], into: "day")
    try runGesture(["train", "--epochs", "20", "--augment", "none", "--output", "bg.model"], in: folder.path)
        .succeeded()
    return folder
}

@Suite struct RejectCommandTests {
    private func everyday(_ user: String) throws -> String {
        let folder = try trained
        let recordings = "everyday-\(user)"
        try runGesture(
            [
                "record", "--device", "sim", "--user", user, "--continuous", "--as", "walk", "--sim-everyday", "all",
                "--seconds", "300", "--rate", "25", "--fast", "--quiet", "--keep", "--recordings", recordings,
            ], in: folder.path
        ).succeeded()
        return "replay:\(recordings)/\(user)-recordings.csv"
    }

    /// What `gesture detect` printed, a line each.
    private func lines(_ arguments: [String], in folder: TemporaryFolder) throws -> [Substring] {
        try runGesture(["detect", "--fast"] + arguments, in: folder.path).succeeded().output.split(separator: "\n")
    }

    @Test func rejectionMarksUnknownMotionAndOffShowsTheOldDetections() throws {
        let replay = try everyday("stroller")
        let folder = try trained
        let eager = ["--model", "m.model", "--device", replay, "--threshold", "0.3"]
        let on = try lines(eager + ["--predictions"], in: folder)
        let off = try lines(eager + ["--predictions", "--reject", "off"], in: folder)
        #expect(on.contains { $0.hasSuffix("  unknown motion") })
        #expect(!off.contains { $0.hasSuffix("  unknown motion") })
        #expect(on.map { $0.replacingOccurrences(of: "  unknown motion", with: "") } == off.map(String.init))
        let detectedOn = try lines(eager, in: folder), detectedOff = try lines(eager + ["--reject", "off"], in: folder)
        #expect(detectedOn.count <= detectedOff.count && !detectedOff.isEmpty)
        #expect(!detectedOn.contains { $0.hasSuffix("  unknown motion") })
    }

    /// `train --motion-rejection` adds the test of the motion's statistics to the model: it marks
    /// windows unknown that the embedding's distance alone lets through, `--reject off` still shows
    /// every class, and the Core ML export carries it (its state in and out) without a warning.
    @Test func trainingWithTheMotionTestMarksMoreUnknownMotionAndCoreMLCarriesIt() throws {
        let folder = try trained
        try runGesture(
            ["train", "--epochs", "40", "--augment", "none", "--motion-rejection", "0.2", "--output", "motion.model"],
            in: folder.path
        ).succeeded()
        let file = try #require(FileManager.default.contents(atPath: folder.path.appending("motion.model").string))
        let header = String(decoding: file, as: UTF8.self)
        #expect(header.contains("\"motion\":{\"center\""))
        let eager = ["--model", "motion.model", "--device", try everyday("wanderer"), "--threshold", "0.3"]
        let on = try lines(eager + ["--predictions"], in: folder)
        let off = try lines(eager + ["--predictions", "--reject", "off"], in: folder)
        #expect(on.contains { $0.hasSuffix("  unknown motion") })
        #expect(off.allSatisfy { !$0.hasSuffix("  unknown motion") })
        let detectedOn = try lines(eager, in: folder), detectedOff = try lines(eager + ["--reject", "off"], in: folder)
        #expect(detectedOn.count < detectedOff.count, "\(detectedOn.count) against \(detectedOff.count)")
        let export = try runGesture(
            ["export", "motion.model", "--format", "coreml", "-o", "motion.mlmodel"], in: folder.path
        )
        .succeeded()
        #expect(!export.error.contains("motion"), "\(export.error)")
        let exported = try #require(
            FileManager.default.contents(atPath: folder.path.appending("motion.mlmodel").string))
        #expect(["motionIn", "motionOut"].allSatisfy(String(decoding: exported, as: UTF8.self).contains))
        let bad = try runGesture(["train", "--motion-rejection", "1.5"], in: folder.path)
        #expect(bad.status == 2 && bad.error.contains("--motion-rejection 1.5 is not off or a share from 0 to 1"))
    }

    @Test func aRejectValueOtherThanOnOrOffIsAUsageError() throws {
        let result = try runGesture(
            ["detect", "--model", "m.model", "--device", "sim", "--reject", "maybe"], in: trained.path)
        #expect(result.status == 2)
        #expect(result.error.contains("'maybe' is invalid for '--reject") && result.error.contains("'on' and 'off'"))
    }

    @Test func theFirstCtrlCStopsCrossvalLeavingGesturesOut() async throws {
        let (status, error) = try await interrupt(
            ["crossval", "--leave-gesture-out", "--epochs", "65536"], in: try backgroundFolder.value().path,
            at: "leaving chop and ann out (1 of 2)", watchingErrors: true)
        #expect(status == 128 + SIGINT)
        #expect(error.contains("stopped before the first of 2 folds ended"), "\(error)")
    }

    @Test func crossvalLeavesAGestureOutWithAPersonAndReplaysThem() throws {
        let folder = try backgroundFolder.value()
        let result = try runGesture(["crossval", "--leave-gesture-out", "--epochs", "5", "--json"], in: folder.path)
            .succeeded()
        #expect(result.error.contains("leaving chop and ann out (1 of 2)"), "\(result.error)")
        let lines = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let folds = lines.dropLast()
        #expect(folds.map { "\($0["gesture"] ?? "") \($0["user"] ?? "")" } == ["chop ann", "shake ben"])
        // Each person recorded 3 takes of the gesture still known, and 2 minutes of everyday motion.
        #expect(folds.map { $0["knownGestures"] as? Int } == [3, 3])
        for fold in folds {
            #expect((fold["found"] as? Int ?? 4) <= 3)
            #expect((fold["unknownHours"] as? Double ?? 0) > 120.0 / 3600)
        }
        let summary = try #require(lines.last)
        #expect(summary["gesture"] == nil && summary["knownGestures"] as? Int == 6)
        #expect(summary["falseDetections"] as? Int == folds.compactMap { $0["falseDetections"] as? Int }.reduce(0, +))

        let every = try runGesture(
            [
                "crossval", "--leave-gesture-out", "--every-person", "--epochs", "2", "--reject", "off", "--threshold",
                "0.5",
            ],
            in: folder.path
        ).succeeded().output.split(separator: "\n")
        #expect(every.filter { $0.contains(" left out: ") && $0.contains(" false detections per hour") }.count == 4)
        #expect(every.last?.hasPrefix("4 of 4 folds: ") == true, "\(every)")

        let alone = try runGesture(["crossval", "--every-person"], in: folder.path)
        #expect(alone.status == 2 && alone.error == "gesture: --every-person needs --leave-gesture-out\n")
    }

    @Test func trainingLearnsBackgroundMotionThatIsNeverDetected() throws {
        let folder = try backgroundFolder.value()
        let listening = try runGesture(
            ["detect", "--model", "bg.model", "--device", "sim", "--duration", "1", "--fast"], in: folder.path
        ).succeeded()
        #expect(listening.error.contains("for chop, shake;"), "\(listening.error)")
        let predictions = try runGesture(
            ["detect", "--model", "bg.model", "--device", "replay:day/cy-recordings.csv", "--fast", "--predictions"]
                + ["--reject", "off"], in: folder.path
        ).succeeded()
        #expect(predictions.output.contains("  other  "), "the model learned the background class")
        let result = try runGesture(
            ["detect", "--model", "bg.model", "--device", "replay:day/cy-recordings.csv", "--fast", "--evaluate"]
                + ["--reject", "off"], in: folder.path
        ).succeeded()
        let detected = result.output.split(separator: "\n").filter { $0.contains(" s  ") }
        #expect(!detected.contains { $0.contains("  other  ") }, "\(detected)")
        #expect(result.output.contains("0 gestures: 0 found, 0 missed; "), "\(result.output)")
        let file = try #require(FileManager.default.contents(atPath: folder.path.appending("bg.model").string))
        #expect(
            String(decoding: file.prefix(100_000), as: UTF8.self).contains("\"motion\":{\"center\""),
            "with everyday motion recorded, the model tests the motion's statistics too")
    }
}
