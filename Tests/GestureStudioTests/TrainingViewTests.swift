import BrowserDriver
import Foundation
import GestureCore
import GestureTestSupport
import Testing

/// The studio's training view in headless Chromium: sessions ticked with the pointer train a model
/// in the studio, its epochs shown as they come, scored on the sessions held out as `gesture
/// evaluate` scores it, and offered to the detect view; bad requests are refused with a line on the
/// page, a second start while one runs with 409, and requests without the token with 401.
@Suite struct TrainingViewTests {
    /// ann and ben, two takes each of shake and chop at 25 Hz, and a manifest split by session.
    static func record(into folder: TemporaryFolder) throws {
        for user in ["ann", "ben"] {
            for gesture in ["shake", "chop"] {
                try runGesture(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate",
                        "25", "--fast", "--quiet", "--keep", "--append", "--seed", "3",
                    ], in: folder.path
                ).succeeded()
            }
        }
        try runGesture(
            ["split", "--by", "session", "--validation", "0.25", "--test", "0.25", "-o", "recordings/split.txt"],
            in: folder.path
        ).succeeded()
    }

    static func openTrainingView() async throws -> StudioViewsTests.Studio {
        let studio = try await StudioViewsTests.Studio(prepare: record)
        try await studio.show("train")
        try await studio.page.waitUntil("the sessions listed", "studio.trainingSessions?.length === 8")
        return studio
    }

    @Test func theTickedSessionsTrainAModelScoredAsEvaluateScoresItAndOfferedToDetect() async throws {
        let studio = try await Self.openTrainingView()
        let page = studio.page
        let unticked = try #require(try studio.sessions().last).id.rawValue
        try await page.click("#train-all")
        try await page.click("#train-sessions input[data-id=\"\(unticked)\"]")
        #expect(try await page.evaluate("tickedSessions().length") as? Int == 7)
        try await set(epochs: "2", augment: "none", on: page)
        try await page.click("#train-start")
        // Two epochs may end before the page first asks: the running state is looked at in the
        // long run of `badRequestsAre400ASecondStartIs409AndNoTokenIs401`.
        try await page.waitUntil("training finished", "studio.training?.state === 'finished'")
        #expect(try await page.evaluate("document.getElementById('train-cancel').disabled") as? Bool == true)

        let progress = try #require(try await page.evaluate("studio.training") as? [String: Any])
        #expect(progress["epochs"] as? Int == 2)
        let epochs = try #require(progress["history"] as? [[String: Any]])
        #expect(epochs.compactMap { $0["epoch"] as? Int } == [1, 2])
        let losses = epochs.compactMap { $0["validationLoss"] as? Double }
        #expect(progress["keptEpoch"] as? Int == losses.indices.min { losses[$0] < losses[$1] }.map { $0 + 1 })
        #expect(try await page.evaluate("document.querySelectorAll('#train-history line.kept').length") as? Int == 2)
        #expect(try await page.text("#train-epoch") == "finished, epoch 2 of 2")
        for series in ["training", "validation"] {
            #expect(
                try await page.evaluate("document.querySelectorAll('#train-history polyline.\(series)').length")
                    as? Int == 2, "\(series): a line on each panel")
        }
        #expect(progress["model"] as? String == "studio-1.model")
        let models = studio.folder.recordings.root.appending("models")
        let history = try String(contentsOfFile: models.appending("studio-1.history.csv").string, encoding: .utf8)
        #expect(history.split(separator: "\n").count == 3, "a header and two epochs: \(history)")

        // The figures shown are those `gesture evaluate` gives the model file on the sessions held out.
        let evaluation = try #require(progress["evaluation"] as? [String: Any])
        let heldOut = try #require(evaluation["sessions"] as? [[String: Any]]).compactMap { $0["session"] as? String }
        #expect(heldOut.count == 2 && !heldOut.contains(unticked), "\(heldOut)")
        let manifest = Manifest(entries: heldOut.map { .init(part: .test, session: SessionID(rawValue: $0)) })
        try manifest.text.write(
            toFile: studio.folder.path.appending("held-out.txt").string, atomically: true, encoding: .utf8)
        let evaluated = try runGesture(
            ["evaluate", "recordings/models/studio-1.model", "--test", "held-out.txt", "--json"], in: studio.folder.path
        ).succeeded().output
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(evaluated.split(separator: "\n")[0].utf8)) as? [String: Any])
        let scored = try #require(expected["evaluation"] as? [String: Any])
        let classes = try #require(scored["classNames"] as? [String])
        let confusion = try #require(scored["confusion"] as? [[Int]])
        #expect(evaluation["classNames"] as? [String] == classes && evaluation["confusion"] as? [[Int]] == confusion)
        #expect(evaluation["accuracy"] as? Double == scored["accuracy"] as? Double)
        // `gesture detect` runs it: the lean detector reads the same format.
        let predictions = try runGesture(
            [
                "detect", "--model", "recordings/models/studio-1.model", "--fast", "--predictions", "--device",
                "replay:recordings/ben-recordings.csv",
            ], in: studio.folder.path
        ).succeeded().output
        #expect(predictions.split(separator: "\n").count > 10, "\(predictions)")
        #expect(
            try await cells("#train-confusion tbody tr", on: page)
                == zip(classes, confusion).map { [$0] + $1.map(String.init) })
        let figures = try #require(scored["classes"] as? [[String: Any]])
        #expect(
            try await cells("#train-classes tbody tr", on: page)
                == figures.map {
                    [
                        $0["name"] as! String, String(format: "%.3f", $0["precision"] as! Double),
                        String(format: "%.3f", $0["recall"] as! Double), String(format: "%.3f", $0["f1"] as! Double),
                        "\($0["support"] as! Int)",
                    ]
                })
        try await studio.screenshot("train")

        // The model joins the detect view's choices, and classifies a session's windows.
        try await page.waitUntil("the model listed", "studio.devices.models.length === 1")
        #expect(try await page.evaluate("studio.devices.models[0].name") as? String == "studio-1.model")
        #expect(try await page.text("#detect-model option").hasPrefix("studio-1.model ("))
        let windows = try await page.evaluate(
            "api('/api/sessions/' + encodeURIComponent('\(unticked)') + '/windows', undefined, { model: 0 })"
                + ".then((answer) => answer.windows.length)")
        #expect((windows as? Int ?? 0) > 0, "\(windows ?? "nothing")")
    }

    @Test func badRequestsAre400ASecondStartIs409AndNoTokenIs401() async throws {
        let studio = try await Self.openTrainingView()
        let page = studio.page
        try await page.click("#train-start")
        try await said("tick the sessions to train on, or choose a manifest", on: page)
        try await page.click("#train-all")
        try await set(epochs: "0", augment: "", on: page)
        try await page.click("#train-start")
        try await said("epochs 0 is not a number from 1 to 65536", on: page)
        try await set(epochs: "", augment: "mirror twirl", on: page)
        try await page.click("#train-start")
        try await said("augment 'twirl' is not one of none, mirror, rotate, warp, scale", on: page)

        let sessions = try studio.sessions()
        let shake = try #require(sessions.first { $0.gesture == .shake }).id.rawValue
        let all = sessions.map { "\"\($0.id)\"" }.joined(separator: ",")
        for (body, error) in [
            (#"{"sessions":["nope"]}"#, "no session nope among the recordings kept"),
            (#"{"sessions":["\#(shake)"],"classifier":"forest"}"#, "classifier 'forest' is not network or both"),
            (
                #"{"sessions":["\#(shake)"]}"#,
                "tick two sessions or more of a gesture, so that one can be held out to score the model"
            ),
            (#"{"manifest":"../split.txt"}"#, "../split.txt is not a manifest of the recordings folder"),
            (#"{"manifest":"split.txt","sessions":[\#(all)]}"#, "tick sessions or choose a manifest, not both"),
            ("not json", "not a training request the studio makes"),
        ] {
            let answer = try await page.request("/api/training", body)
            #expect(answer.status == 400 && answer.error == error, "\(body): \(answer)")
        }
        #expect(try await page.evaluate("api('/api/training').then((progress) => progress.state)") as? String == "idle")

        // A run that would take long: a second start is refused while it runs, until it is cancelled.
        // The most epochs there may be: the release build trains 1000 of these few sessions' epochs
        // before this test's requests and screenshot are done, and Cancel then finds nothing to cancel.
        try await set(epochs: "65536", augment: "none", on: page)
        try await page.click("#train-start")
        try await page.waitUntil(
            "training running with Cancel enabled",
            "studio.training?.state === 'running' && document.getElementById('train-cancel').disabled === false")
        let second = try await page.request("/api/training", #"{"sessions":[\#(all)]}"#)
        #expect(second.status == 409 && second.error.hasPrefix("a training is running (epoch "), "\(second)")
        _ = try await page.evaluate("startTraining()")
        try await said(second.error.prefix { $0 != "(" }, on: page, prefix: true)
        try await studio.screenshot("train-refused")
        for path in ["/api/training", "/api/training/cancel"] {
            for body in [nil, "{}"] where path == "/api/training" || body != nil {
                let refused = try await page.request(path, body, token: false)
                #expect(refused.status == 401, "\(path) \(body ?? "GET")")
            }
        }
        try await page.click("#train-cancel")
        try await page.waitUntil("training cancelled", "studio.training?.state === 'cancelled'")
        let models = studio.folder.recordings.root.appending("models").string
        #expect(!FileManager.default.fileExists(atPath: models), "a cancelled run wrote a model")
        let again = try await page.request("/api/training/cancel", "{}")
        #expect(again.status == 409 && again.error == "no training is running", "\(again)")

        // A run whose model cannot be written fails, and says why.
        #expect(FileManager.default.createFile(atPath: models, contents: Data()))
        try await set(epochs: "1", augment: "none", on: page)
        _ = try await page.evaluate("document.getElementById('train-source').value = 'split.txt'; true")
        try await page.click("#train-start")
        try await page.waitUntil("training failed", "studio.training?.state === 'failed'")
        try await said("cannot create recordings/models: ", on: page, prefix: true)
        #expect(try await page.evaluate("studio.devices.models.length") as? Int == 0)
        try FileManager.default.removeItem(atPath: models)

        // A manifest's train and validation parts, scored on its test part.
        try await page.click("#train-start")
        try await page.waitUntil("training finished", "studio.training?.state === 'finished'")
        let split = try Manifest(
            text: String(contentsOfFile: studio.folder.recordings.root.appending("split.txt").string, encoding: .utf8),
            file: "split.txt")
        let scored = try #require(
            try await page.evaluate("studio.training.evaluation.sessions.map((session) => session.session)")
                as? [String])
        #expect(Set(scored) == Set(split.sessions(in: .test).map(\.rawValue)))
        #expect(try await page.text("#train-status").hasPrefix("scored on split.txt's test part; "))
        #expect(try await page.evaluate("studio.training.model") as? String == "studio-1.model")
    }

    private func set(epochs: String, augment: String, on page: BrowserPage) async throws {
        _ = try await page.evaluate(
            "document.getElementById('train-epochs').value = '\(epochs)'; "
                + "document.getElementById('train-augment').value = '\(augment)'; true")
    }

    /// Waits for the status line to say `error` as one.
    private func said(_ error: some StringProtocol, on page: BrowserPage, prefix: Bool = false) async throws {
        try await page.waitForError(error, in: "train-status", prefix: prefix)
    }

    /// Each row's cells' text, of the rows `selector` finds.
    private func cells(_ selector: String, on page: BrowserPage) async throws -> [[String]] {
        try #require(
            try await page.evaluate(
                "[...document.querySelectorAll('\(selector)')].map((row) => [...row.cells].map((cell) => cell.textContent))"
            ) as? [[String]])
    }
}
