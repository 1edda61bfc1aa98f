import BrowserDriver
import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// The studio's record view in headless Chromium, started in an empty folder: a recording started
/// with the pointer writes the sessions, catalog rows and files `gesture record` writes, says the
/// prompts it says, and keeps or discards each take as `gesture discard` does; the phone's page
/// shows the prompts and stays paired; bad requests are refused with a line on the page, a second
/// start while one runs with 409, and requests without the token with 401; Stop ends a take as
/// Ctrl-C does.
@Suite struct RecordingViewTests {
    static func openRecordView(_ arguments: [String]) async throws -> StudioViewsTests.Studio {
        let studio = try await StudioViewsTests.Studio(arguments: arguments, prepare: { _ in })
        try await studio.show("record")
        try await studio.page.waitUntil("the record view loaded", "studio.recording !== null")
        return studio
    }

    /// Fills in the form as a person would type it.
    static func fill(
        device: String, user: String, gesture: String, takes: String, take: String = "1", rest: String = "1",
        on page: BrowserPage
    ) async throws {
        let fields = [
            "record-device": device, "record-user": user, "record-gesture": gesture, "record-takes-count": takes,
            "record-take": take, "record-rest": rest,
        ]
        for (id, value) in fields {
            _ = try await page.evaluate("document.getElementById('\(id)').value = \(try jsonLiteral(value)); true")
        }
    }

    @Test func aRecordingFromThePageWritesWhatGestureRecordWritesAndKeepsOrDiscardsEachTake() async throws {
        let wavs = try TemporaryFolder()
        let studio = try await Self.openRecordView(["--speech-to", wavs.path.string])
        let page = studio.page
        try await Self.fill(device: "sim", user: "ann", gesture: "shake", takes: "2", on: page)
        try await page.click("#record-start")
        try await page.waitUntil(
            "recording, Stop enabled",
            "studio.recording.state === 'recording' && document.getElementById('record-stop').disabled === false")
        // The latest prompt big: a look checks the prompts said and the one shown together.
        try await page.waitUntil(
            "Go said, the latest prompt shown big",
            "studio.recording.prompts.includes('Go') && "
                + "document.getElementById('record-prompt').textContent === studio.recording.prompts.at(-1)")
        try await studio.screenshot("record-prompt")

        // Take 1 discarded as it ends, while take 2 is recorded: applied once the recording ends.
        try await page.waitUntil("take 1 ended", "studio.recording.takes.length >= 1")
        let first = try #require(try await page.evaluate("studio.recording.takes[0].record.id") as? String)
        try await page.click("#record-takes button[data-discard=\"\(first)\"]")
        try await page.waitUntil("recording finished", "studio.recording.state === 'finished'")
        try await page.waitUntil(
            "take 1 discarded", "studio.recording.takes[0].record.status === 'discarded'")
        try await studio.screenshot("record-finished")
        let last = try #require(try await page.evaluate("studio.recording.takes[1].record.id") as? String)
        // Take 2 discarded, then kept again: restored as `gesture restore` does.
        try await page.click("#record-takes button[data-discard=\"\(last)\"]")
        try await page.waitUntil("take 2 discarded", "studio.recording.takes[1].record.status === 'discarded'")
        try await page.click("#record-takes button[data-keep=\"\(last)\"]")
        try await page.waitUntil("take 2 kept", "studio.recording.takes[1].record.status === 'kept'")

        // `gesture record` with the same plan, for ben.
        let cliWavs = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ben", "--gesture", "shake", "--takes", "2", "--take", "1",
                "--rest", "1", "--fast", "--keep", "--speech-to", cliWavs.path.string,
            ], in: studio.folder.path
        ).succeeded()
        let sessions = try studio.sessions()
        let ann = sessions.filter { $0.user.rawValue == "ann" }
        let ben = sessions.filter { $0.user.rawValue == "ben" }
        #expect(ann.map(\.status) == [.discarded, .kept] && ben.map(\.status) == [.kept, .kept])
        #expect(ann[0].reason == "discarded after recording", "\(ann[0].reason ?? "")")
        #expect(ann.map(\.take) == [1, 2] && ben.map(\.take) == [1, 2])
        for (recorded, expected) in zip(ann, ben) {
            #expect(recorded.device == expected.device && recorded.device == "sim")
            #expect(recorded.requestedRate == expected.requestedRate && recorded.deviceRate == expected.deviceRate)
            #expect(recorded.promptFrom == expected.promptFrom && recorded.promptTo == expected.promptTo)
            #expect(recorded.file == expected.file.replacingOccurrences(of: "ben-", with: "ann-"))
            #expect(recorded.alignment == expected.alignment && recorded.alignment == .aligned)
            #expect(recorded.labels?.map(\.label) == expected.labels?.map(\.label), "\(recorded.labels ?? [])")
            let share = Double(recorded.sampleCount) / Double(expected.sampleCount)
            #expect(share > 0.9 && share < 1.1, "\(recorded.sampleCount) rows, \(expected.sampleCount) by record")
        }
        // The rows: the kept take's in ann's file, the discarded one's moved beside it, labeled as the catalog says.
        let file = studio.file(of: "ann")
        for (record, path) in [(ann[1], file), (ann[0], studio.folder.recordings.discardedFile(for: file))] {
            let rows = try readRows(path).filter { $0.session == record.id }
            #expect(rows.count == record.sampleCount, "\(record.id)")
            #expect([LabelSpan](runsOf: rows) == record.labels, "\(record.id)")
        }
        let header = { (path: FilePath) in
            try String(contentsOfFile: path.string, encoding: .utf8).prefix { $0 != "\n" }
        }
        #expect(try header(file) == header(studio.file(of: "ben")))
        try runGesture(["check"], in: studio.folder.path).succeeded()

        // The prompts `gesture record` says, shown and spoken.
        let spoken = try FileManager.default.contentsOfDirectory(atPath: wavs.path.string).sorted()
        let expected = try FileManager.default.contentsOfDirectory(atPath: cliWavs.path.string).sorted()
        #expect(spoken == expected && !spoken.isEmpty, "\(spoken)")
        #expect(try await page.evaluate("studio.recording.prompts.length") as? Int == expected.count)

        // The new sessions are in the sessions view.
        try await studio.show("sessions")
        try await page.waitUntil("four sessions listed", "studio.sessions !== null && studio.sessions.length === 4")
    }

    @Test func thePhoneRecordsWithThePromptsOnBothPagesAndStaysPaired() async throws {
        let studio = try await Self.openRecordView(["--quiet"])
        let page = studio.page
        try await Self.fill(device: "phone", user: "ann", gesture: "shake", takes: "1", on: page)
        try await page.click("#record-start")
        try await page.waitUntil("waiting for the phone", "studio.recording.state === 'waiting'")
        try await studio.screenshot("record-waiting")
        let phone = try await studio.phonePage(playing: PhoneRecordingTests.player)
        try await PhoneRecordingTests.waitForPrompt("Go", on: phone)
        try await page.waitUntil("Go on the laptop's page", "studio.recording.prompts.includes('Go')")
        let screenshot = studio.folder.path.appending("phone-record.png")
        try await phone.screenshot(to: screenshot)
        keepScreenshot(screenshot)
        try await page.waitUntil("recording finished", "studio.recording.state === 'finished'")
        try await PhoneRecordingTests.waitForPrompt("Done", on: phone)

        // The phone stays paired: a second recording needs nothing more of it.
        // A later revision than the finished one's is the second recording's, however briefly the
        // page showed it waiting; GroupRecordingTests' wait says the status line and takes if it fails.
        let finished = try #require(try await page.evaluate("studio.recording.revision") as? Int)
        try await page.click("#record-start")
        try await GroupRecordingTests.waitUntil(
            "a second recording started", "studio.recording.revision > \(finished)", on: page)
        try await GroupRecordingTests.waitUntil(
            "a second recording finished",
            "studio.recording.state === 'finished' && studio.recording.prompts.includes('Session complete')", on: page)
        #expect(try await phone.evaluate("studio.connected") as? Bool == true)
        let sessions = try studio.sessions()
        #expect(sessions.map(\.device) == ["phone", "phone"] && sessions.map(\.status) == [.kept, .kept])
        let rows = try readRows(studio.file(of: "ann"))
        for record in sessions {
            let own = rows.filter { $0.session == record.id }
            #expect(own.count == record.sampleCount && !own.isEmpty)
            #expect([LabelSpan](runsOf: own) == record.labels)
        }
        try await studio.screenshot("record-phone")
    }

    /// A board (here the simulated one) with the phone ticked: its rows carry the phone's
    /// readings, as `gesture record --with phone` writes them, the prompts on the phone's page.
    @Test func aBoardRecordsWithThePhoneOnItsRows() async throws {
        let studio = try await Self.openRecordView(["--quiet"])
        let page = studio.page
        let offered = "!document.getElementById('record-with-phone-label').hidden"
        #expect(try await page.evaluate(offered) as? Bool == false, "the phone is not offered with itself")
        try await Self.fill(device: "sim", user: "ann", gesture: "shake", takes: "1", on: page)
        _ = try await page.evaluate(
            "document.getElementById('record-device').dispatchEvent(new Event('change')); true")
        try await page.waitUntil("the phone offered with the board", offered)
        try await page.click("#record-with-phone")
        try await studio.screenshot("record-board-with-phone")
        try await page.click("#record-start")
        try await page.waitUntil("waiting for the phone", "studio.recording.state === 'waiting'")
        let phone = try await studio.phonePage(playing: PhoneRecordingTests.player)
        try await PhoneRecordingTests.waitForPrompt("Go", on: phone)
        try await page.waitUntil("recording finished", "studio.recording.state === 'finished'")
        try await PhoneRecordingTests.waitForPrompt("Done", on: phone)
        let session = try #require(try studio.sessions().first)
        #expect(session.device == "sim" && session.status == .kept && session.file == "ann-recordings-with-phone.csv")
        try PhoneCommandsTests.expectThePhonesMotion(in: session, of: studio)
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func closingThePhonesPageMidTakeSavesItIncompleteAndANewPageRecords() async throws {
        let studio = try await Self.openRecordView(["--quiet"])
        let page = studio.page
        let phone = try await studio.phonePage(playing: PhoneRecordingTests.player)
        try await Self.fill(device: "phone", user: "ann", gesture: "shake", takes: "2", take: "30", on: page)
        try await page.click("#record-start")
        try await PhoneRecordingTests.waitForPrompt("Go", on: phone)
        try await phone.close()
        try await page.waitUntil("recording stopped", "studio.recording.state === 'stopped'")
        let status = try await page.text("#record-status")
        #expect(status.hasPrefix("phone: the phone's page stopped delivering (the connection closed)"), "\(status)")
        let stopped = try studio.sessions()
        #expect(stopped.map(\.status) == [.incomplete])
        #expect(try readRows(studio.file(of: "ann")).count == stopped.first?.sampleCount)

        // Another page pairs in its place, and records.
        let second = try await studio.phonePage(playing: PhoneRecordingTests.player, browser: "second-phone")
        try await Self.fill(device: "phone", user: "ann", gesture: "shake", takes: "1", on: page)
        let stoppedRevision = try #require(try await page.evaluate("studio.recording.revision") as? Int)
        try await page.click("#record-start")
        try await GroupRecordingTests.waitUntil(
            "recording again", "studio.recording.revision > \(stoppedRevision)", on: page)
        try await GroupRecordingTests.waitUntil("recording finished", "studio.recording.state === 'finished'", on: page)
        try await PhoneRecordingTests.waitForPrompt("Done", on: second)
        #expect(try studio.sessions().map(\.status) == [.incomplete, .kept])
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func badRequestsAre400ASecondStartIs409NoTokenIs401AndStopEndsATake() async throws {
        let studio = try await Self.openRecordView(["--quiet"])
        let page = studio.page
        try await Self.fill(device: "sim", user: "", gesture: "shake", takes: "2", on: page)
        try await page.click("#record-start")
        try await page.waitForError("name the user who records", in: "record-status")
        try await Self.fill(device: "sim", user: "ann", gesture: "shake", takes: "x", on: page)
        try await page.click("#record-start")
        try await page.waitForError("takes 'x' is not a number", in: "record-status")
        try await studio.screenshot("record-refused")

        for (body, error) in [
            (#"{"device":"sim","user":"ann","gesture":"shake","takes":0}"#, "takes must be from 1 to 1000, not 0"),
            (#"{"device":"sim","user":"ann","gesture":"rest"}"#, "'rest' is the label between takes, not a gesture"),
            (
                #"{"device":"sim","user":"ann","gesture":"shake","take":0.5}"#,
                "take must last at least 1 second, long enough to make a gesture, not 0.5"
            ),
            (#"{"device":"sim","gesture":"shake"}"#, "name the user who records"),
            ("not json", "not a recording request the studio makes"),
        ] {
            let answer = try await page.request("/api/recording", body)
            #expect(answer.status == 400 && answer.error == error, "\(body): \(answer)")
        }
        for body in [
            #"{"device":"sim","user":"a-b","gesture":"shake"}"#, #"{"device":"nope","user":"ann","gesture":"shake"}"#,
        ] {
            let answer = try await page.request("/api/recording", body)
            #expect(answer.status == 400 && !answer.error.contains("\n"), "\(body): \(answer)")
            #expect(answer.error.contains("a-b") || answer.error.contains("nope"), "\(answer)")
        }
        let unknown = try await page.request("/api/recording/decision", #"{"session":"nope","keep":false}"#)
        #expect(unknown.status == 400 && unknown.error == "nope is not a take of the last recording, or has not ended")
        #expect(try await page.request("/api/recording/decision", "{}").status == 400)
        #expect(
            try await page.evaluate("api('/api/recording').then((progress) => progress.state)") as? String == "idle")
        #expect(!FileManager.default.fileExists(atPath: studio.file(of: "ann").string))

        // Waiting for a phone that never comes: a second start is refused until it is stopped.
        try await Self.fill(device: "phone", user: "ann", gesture: "shake", takes: "2", on: page)
        try await page.click("#record-start")
        try await page.waitUntil("waiting for the phone", "studio.recording.state === 'waiting'")
        let second = try await page.request("/api/recording", #"{"device":"sim","user":"ben","gesture":"chop"}"#)
        #expect(second.status == 409 && second.error == "ann is recording shake (take 1 of 2): wait for it, or stop it")
        _ = try await page.evaluate("startRecording()")
        try await page.waitForError(second.error, in: "record-status")
        for path in ["/api/recording", "/api/recording/stop", "/api/recording/decision"] {
            for body in [nil, "{}"] where path == "/api/recording" || body != nil {
                let refused = try await page.request(path, body, token: false)
                #expect(refused.status == 401, "\(path) \(body ?? "GET")")
            }
        }
        try await page.click("#record-stop")
        try await page.waitUntil("recording stopped", "studio.recording.state === 'stopped'")
        #expect(try await page.text("#record-status") == "stopped before the phone's page streamed")
        let again = try await page.request("/api/recording/stop", "{}")
        #expect(again.status == 409 && again.error == "no recording is running", "\(again)")
        #expect(!FileManager.default.fileExists(atPath: studio.file(of: "ann").string))

        // Stop in a take ends it as Ctrl-C ends `gesture record`: saved as incomplete, with its rows.
        // A take long enough for the Stop to come in it, however slowly the page is driven.
        try await Self.fill(device: "sim", user: "ann", gesture: "shake", takes: "2", take: "600", on: page)
        try await page.click("#record-start")
        try await page.waitUntil("take 1 begun", "studio.recording.prompts.includes('Get ready to shake')")
        try await page.click("#record-stop")
        try await page.waitUntil("recording stopped", "studio.recording.state === 'stopped'")
        #expect(try await page.text("#record-status") == "stopped in the studio")
        let sessions = try studio.sessions()
        #expect(sessions.map(\.status) == [.incomplete] && sessions.first?.reason == "stopped in the studio")
        #expect(try readRows(studio.file(of: "ann")).count == sessions.first?.sampleCount)
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    /// Types `value` into the field `id` as a person would: the value changed, then an input event.
    static func type(_ value: String, into id: String, on page: BrowserPage) async throws {
        _ = try await page.evaluate(
            "(() => { const field = document.getElementById('\(id)'); field.value = \(try jsonLiteral(value)); "
                + "return field.dispatchEvent(new Event('input', { bubbles: true })); })()")
    }

    /// Types a user and a gesture, and waits for the page to have checked them.
    static func typeNames(user: String, gesture: String, on page: BrowserPage) async throws {
        try await type(user, into: "record-user", on: page)
        try await type(gesture, into: "record-gesture", on: page)
        try await page.waitUntil(
            "\(user)/\(gesture) checked",
            "document.getElementById('record-names').dataset.checked === \(try jsonLiteral("\(user)/\(gesture)"))")
    }

    /// A user in other letter case, or a gesture one slip from one recorded, is said under its field
    /// before the recording starts; the recording still starts: the user as recorded, the gesture as typed.
    @Test func aNameCloseToOneRecordedIsSaidUnderItsFieldAndStillRecorded() async throws {
        let studio = try await StudioViewsTests.Studio(arguments: ["--quiet"])
        try await studio.show("record")
        let page = studio.page
        try await page.waitUntil("the record view loaded", "studio.recording !== null")
        #expect(
            try await page.evaluate("document.querySelector('#record-gestures option[value=shake]').label")
                as? String == "4 sessions")
        try await Self.typeNames(user: "Ann", gesture: "shkae", on: page)
        #expect(
            try await page.text("#record-user-warning")
                == "user 'Ann' is 'ann' in the recordings already; using 'ann'")
        #expect(
            try await page.text("#record-gesture-warning")
                == "gesture 'shkae' is new; did you mean 'shake' (4 sessions)?")
        try await studio.screenshot("record-names")
        try await Self.typeNames(user: "ben", gesture: "chop", on: page)
        #expect(
            try await page.evaluate(
                "['record-user-warning', 'record-gesture-warning'].every((id) => document.getElementById(id).hidden)")
                as? Bool == true)
        let refused = try await page.request("/api/recording/names", nil, token: false)
        #expect(refused.status == 401, "\(refused)")

        try await Self.fill(device: "sim", user: "Ann", gesture: "shkae", takes: "1", on: page)
        try await page.click("#record-start")
        try await page.waitUntil("recording finished", "studio.recording.state === 'finished'")
        let recorded = try studio.sessions().filter { $0.gesture.rawValue == "shkae" }
        #expect(recorded.map(\.user.rawValue) == ["ann"] && recorded.map(\.take) == [1])
        #expect(try await page.text("#record-status").hasPrefix("ann recording 1 take of shkae"))
    }

    /// Without espeak-ng on its PATH, the studio shows the prompts, and the page says once why they
    /// are not spoken.
    @Test func withoutEspeakThePageSaysWhyThePromptsAreNotSpoken() async throws {
        let emptyPath = try TemporaryFolder()
        let studio = try await StudioViewsTests.Studio(environment: ["PATH": emptyPath.path.string], prepare: { _ in })
        try await studio.show("record")
        let page = studio.page
        try await page.waitUntil("the record view loaded", "studio.recording !== null")
        try await Self.fill(device: "sim", user: "ann", gesture: "shake", takes: "1", take: "600", on: page)
        try await page.click("#record-start")
        let line = "espeak-ng was not found; prompts are printed instead (apt-get install espeak-ng)"
        try await page.waitUntil(
            "the speech line on the page",
            "document.getElementById('record-status').textContent.endsWith(\(try jsonLiteral(line)))")
        #expect(try await page.text("#record-status") == "ann recording 1 take of shake on sim; \(line)")
        try await page.waitUntil("Go shown", "studio.recording.prompts.includes('Go')")
        #expect(try await page.evaluate("studio.recording.warnings.length") as? Int == 1)
        try await studio.screenshot("record-no-speech")
        try await page.click("#record-stop")
        try await page.waitUntil("recording stopped", "studio.recording.state === 'stopped'")
    }
}
