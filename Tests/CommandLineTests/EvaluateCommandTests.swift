import Foundation
import GestureTestSupport
import Testing

/// `gesture evaluate` on the shared trained model (ann, ben and cat, every session, no validation)
/// and `gesture split` placing named users, in child processes.
@Suite struct EvaluateCommandTests {
    private func gesture(_ arguments: [String]) throws -> ProcessResult {
        try runGesture(arguments, in: trained.path)
    }

    /// A confusion matrix path of the test's own, as tests share the folder.
    private var confusion: [String] { ["--confusion", "confusion-\(UUID().uuidString).svg"] }

    @Test func evaluateWarnsFromWhatTheModelRecordsItWasTrainedOn() throws {
        let trainedOn = try gesture(["evaluate", "m.model"] + confusion).succeeded()
        #expect(
            trainedOn.error.contains(
                "gesture: warning: 18 of the 18 test sessions were in its training set: these figures are not a test\n")
        )
        #expect(
            trainedOn.error.contains(
                "gesture: warning: the test set shares users with training (ann, ben, cat): these figures flatter the model\n"
            ))
        let unseen = try gesture(["evaluate", "m.model", "--recordings", "unseen"] + confusion).succeeded()
        #expect(unseen.error.isEmpty, "\(unseen.error)")
    }

    /// A model from elsewhere (here through Core ML) does not say what it was trained on.
    @Test func aModelWithoutATrainingRecordIsScoredWithANote() throws {
        let name = "norecord-\(UUID().uuidString)"
        try gesture(["export", "m.model", "--format", "coreml", "-o", "\(name).mlmodel"]).succeeded()
        try gesture(["import-model", "\(name).mlmodel", "-o", "\(name).model"]).succeeded()
        let result = try gesture(["evaluate", "\(name).model"] + confusion).succeeded()
        #expect(
            result.error
                == "gesture: the model does not record what it was trained on, so whether the test is new to it is unknown\n"
        )
        #expect(result.output.contains("window accuracy "))
    }

    @Test func perSessionPrintsARowPerSessionInTextAndInJSON() throws {
        let arguments = ["evaluate", "m.model", "--recordings", "unseen", "--per-session"]
        let text = try gesture(arguments + confusion).succeeded().output.split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(text.first?.contains(#/session accuracy [0-9.]+ \([0-9] of 8 sessions with a gesture\)/#) == true)
        let header = try #require(text.firstIndex { $0.hasPrefix("session  ") })
        #expect(
            text[header].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                == "session user gesture predicted gesture windows right window accuracy chop drive rest shake")
        let rows = text[(header + 1)...].prefix { !$0.isEmpty }
        #expect(rows.count == 8)
        #expect(rows.allSatisfy { $0.contains(#/ (zed|fast|odd) +(chop|shake) /#) && $0.contains(#/ [0-9]+/[0-9]+ /#) })

        let lines = try gesture(arguments + confusion + ["--json"]).succeeded().output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 9)
        let summary = try #require(lines.first?["evaluation"] as? [String: Any])
        #expect(summary["sessionsWithGesture"] as? Int == 8)
        for session in lines.dropFirst() {
            #expect(["zed", "fast", "odd"].contains(session["user"] as? String))
            #expect(["chop", "shake"].contains(session["gesture"] as? String))
            let predictions = try #require(session["predictions"] as? [String: Int])
            #expect(predictions.keys.sorted() == ["chop", "drive", "rest", "shake"])
            let windows = try #require(session["gestureWindows"] as? Int)
            #expect((0...windows).contains(session["gestureWindowsRight"] as? Int ?? -1))
            #expect(predictions.values.reduce(0, +) >= windows)
            #expect(session["recognised"] is Bool && session["session"] is String)
        }
    }

    @Test func splitPlacesNamedUsersAndRefusesUnknownOnes() throws {
        let manifest = "split-\(UUID().uuidString).txt"
        let split = try gesture(
            ["split", "--by", "user", "--test-users", "ben", "--validation-users", "cat", "-o", manifest, "--json"]
        ).succeeded()
        let report = try #require(try JSONSerialization.jsonObject(with: Data(split.output.utf8)) as? [String: Any])
        let parts = try #require(report["parts"] as? [[String: Any]])
        #expect(parts.map { $0["part"] as? String } == ["train", "validation", "test"])
        #expect(parts.map { $0["users"] as? [String] } == [["ann"], ["cat"], ["ben"]])

        let unknown = try gesture(["split", "--by", "session", "--test-users", "ben,zed", "-o", manifest])
        #expect(unknown.status == 2)
        #expect(
            unknown.error == "gesture: --test-users: no user 'zed' in the selection; its users are ann, ben, cat\n")
    }
}
