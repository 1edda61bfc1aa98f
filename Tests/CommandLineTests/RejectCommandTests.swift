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
    try runGesture(["train", "--epochs", "20", "--output", "bg.model"], in: folder.path).succeeded()
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

    @Test func aRejectValueOtherThanOnOrOffIsAUsageError() throws {
        let result = try runGesture(
            ["detect", "--model", "m.model", "--device", "sim", "--reject", "maybe"], in: trained.path)
        #expect(result.status == 2)
        #expect(result.error.contains("'maybe' is invalid for '--reject") && result.error.contains("'on' and 'off'"))
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
    }
}
