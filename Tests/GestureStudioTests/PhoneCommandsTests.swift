import BrowserDriver
import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

/// `monitor`, `detect` and `play` with `--device phone`: each serves the phone's page, waits for
/// it, reads the motion played into it in headless Chromium, and ends with exit code 1 and the
/// device's message when the page closes.
@Suite struct PhoneCommandsTests {
    /// Starts `gesture` with `arguments` and `--device phone --port 0`, opens the page it prints,
    /// taps Start and plays the known motion of `PhoneRecordingTests`.
    static func fromThePage(
        _ arguments: [String], in folder: TemporaryFolder
    ) async throws -> (RunningGesture, BrowserPage) {
        let gesture = try RunningGesture(arguments + ["--device", "phone", "--port", "0"], in: folder.path)
        let address = try await gesture.address()
        #expect(address.contains("/phone?token="))
        let chromium = try await Chromium(dyingWithTestsIn: folder.path)
        let page = try await chromium.open(address)
        try await page.waitUntil("the page connected", "studio.connected")
        _ = try await page.evaluate("document.getElementById('start').click(); true")
        try await page.waitUntil("the page streaming", "studio.source === 'device-motion'")
        _ = try await page.evaluate(PhoneRecordingTests.player)
        return (gesture, page)
    }

    /// Closes the page and expects the command to end with exit code 1, saying why last.
    static func closingThePageEnds(_ gesture: RunningGesture, _ page: BrowserPage) async throws {
        try await page.close()
        #expect(try await gesture.exitCode() == 1)
        let message = gesture.errors.split(separator: "\n").last ?? ""
        #expect(message.hasPrefix("gesture: phone: the phone's page stopped delivering"), "\(gesture.errors)")
    }

    @Test func monitorShowsThePhonesReadings() async throws {
        let folder = try TemporaryFolder()
        let (gesture, page) = try await Self.fromThePage(["monitor"], in: folder)
        // The motion played turns about z: a line whose z rotation is not zero came from the page.
        let line = try await waitFor("a line of the phone's readings") {
            gesture.output.split(separator: "\n").first { $0.contains("acceleration") && !$0.contains("+0.000 g") }
        }
        #expect(line.contains("rotation"), "\(line)")
        try await Self.closingThePageEnds(gesture, page)
    }

    @Test func detectPredictsOnThePhonesReadings() async throws {
        let folder = try TemporaryFolder()
        try StudioViewsTests.trainModel(in: folder)
        let (gesture, page) = try await Self.fromThePage(
            ["detect", "--model", "m.model", "--predictions"], in: folder)
        let prediction = try await waitFor("a prediction printed") {
            gesture.output.split(separator: "\n").first { $0.contains(" s  ") && $0.contains("runner-up") }
        }
        #expect(prediction.contains("shake") || prediction.contains("chop") || prediction.contains("rest"))
        // The page shows what the terminal prints, the gesture and its probability.
        let gestureShown = try #require(prediction.firstMatch(of: /s  (\w+)  (\d\.\d\d)/))
        try await page.waitUntil(
            "a prediction on the page", "studio.prompts.some(p => p.startsWith('\(gestureShown.1) '))")
        #expect(gesture.errors.contains("listening to phone at 25 Hz"), "\(gesture.errors)")
        try await Self.closingThePageEnds(gesture, page)
    }

    @Test func playCallsTheGesturesOnThePhoneAndEndsWithTheScore() async throws {
        let folder = try TemporaryFolder()
        try StudioViewsTests.trainModel(in: folder)
        let (gesture, page) = try await Self.fromThePage(
            ["play", "--model", "m.model", "--quiet", "--timeout", "1"], in: folder)
        try await page.waitUntil("a call on the page", "studio.prompts.some(p => p.endsWith(' it!'))")
        #expect(try await gesture.exitCode() == 0, "\(gesture.errors)")
        // The motion played is no gesture, but a model may think otherwise: whatever the score, the page shows it.
        let score = try #require(gesture.output.firstMatch(of: /final score (\d+)/)?.1, "\(gesture.output)")
        try await page.waitUntil("the score on the page", "studio.prompts.includes('Score: \(score)')")
        try await page.waitUntil(
            "the page no longer streaming", "document.getElementById('start').textContent === 'Ended'")
    }

    /// With `gesture studio` serving the recordings folder, a command reads the studio's paired
    /// phone through the studio: no address of its own, its prompts on the phone's page, and the
    /// phone still paired when it ends.
    @Test func commandsStartedWhileTheStudioRunsReadItsPairedPhone() async throws {
        let studio = try await StudioViewsTests.Studio(arguments: ["--quiet"])
        let announcement = studio.folder.recordings.root.appending(".studio/running.json").string
        let mode = try FileManager.default.attributesOfItem(atPath: announcement)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try runGesture(["studio", "--port", "0"], in: studio.folder.path)
        #expect(second.status == 1 && second.error.contains("gesture studio serves"), "\(second.error)")
        // Four at once, as a loaded machine meets them: the refusal reaches each (it once came
        // while the command still took the upgrade's response, was lost, and the command hung).
        let folder = studio.folder.path
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let unpaired = try runGesture(["monitor", "--device", "phone", "--port", "0"], in: folder)
                    #expect(unpaired.status == 1)
                    #expect(
                        unpaired.error.split(separator: "\n").last
                            == "gesture: phone: phone 1 is not streaming: open the studio's phone page on it and tap Start",
                        "\(unpaired.error)")
                }
            }
            try await group.waitForAll()
        }

        let phone = try await studio.phonePage(playing: PhoneRecordingTests.player)
        let record = try RunningGesture(
            [
                "record", "--device", "phone", "--port", "0", "--user", "cat", "--gesture", "shake", "--takes", "1",
                "--take", "1", "--rest", "1", "--quiet", "--keep",
            ], in: studio.folder.path)
        #expect(try await record.exitCode() == 0, "\(record.errors)")
        #expect(record.errors.contains("reading the phone paired with gesture studio at http://127.0.0.1:"))
        #expect(!record.errors.contains("waiting for the phone"), "\(record.errors)")
        try await PhoneRecordingTests.waitForPrompt("Go", on: phone)
        try await PhoneRecordingTests.waitForPrompt("Done", on: phone)
        let session = try #require(try studio.sessions().first { $0.user.rawValue == "cat" })
        #expect(session.status == .kept && session.device == "phone" && session.sampleCount > 0)
        let rows = try readRows(studio.file(of: "cat")).filter { $0.session == session.id }
        #expect(rows.count == session.sampleCount)
        try await Self.boardAndPhoneRecordTogether(in: studio)

        // Still paired: the studio lists it streaming, and the next command reads it until it closes.
        try await studio.page.waitUntil(
            "the phone still streaming", "api('/api/phones').then((phones) => phones[0].state === 'streaming')")
        let monitor = try RunningGesture(["monitor", "--device", "phone"], in: studio.folder.path)
        _ = try await waitFor("a line of the phone's readings") {
            monitor.output.split(separator: "\n").first { $0.contains("acceleration") && !$0.contains("+0.000 g") }
        }
        try await Self.closingThePageEnds(monitor, phone)
    }

    /// A board (here the simulated one) with the studio's phone as `--with`: each row of the
    /// board's carries the phone's reading at its time, as the page played it.
    static func boardAndPhoneRecordTogether(in studio: StudioViewsTests.Studio) async throws {
        let record = try runGesture(
            [
                "record", "--device", "sim", "--with", "phone", "--user", "dan", "--gesture", "shake", "--takes", "1",
                "--take", "1", "--rest", "1", "--quiet", "--keep",
            ], in: studio.folder.path)
        #expect(record.status == 0, "\(record.error)")
        let session = try #require(try studio.sessions().first { $0.user.rawValue == "dan" })
        #expect(session.status == .kept && session.device == "sim" && session.file == "dan-recordings-with-phone.csv")
        try expectThePhonesMotion(in: session, of: studio)
    }

    /// The session's rows carry the motion `PhoneRecordingTests.player` plays in the phone's
    /// columns after the board's: gravity about 1 g on z (9.5 to 11 m/s²), a rotation that changes.
    static func expectThePhonesMotion(in session: SessionRecord, of studio: StudioViewsTests.Studio) throws {
        let lines = try String(
            contentsOfFile: studio.folder.recordings.root.appending(session.file).string, encoding: .utf8
        ).split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        #expect(header == RecordingCSV.columns + RecordingCSV.companionColumns(prefix: "phone"))
        #expect(lines.count - 1 == session.sampleCount)
        let column = { (name: String) in
            let index = header.firstIndex(of: name)!
            return lines.dropFirst().map { Double($0.split(separator: ",")[index])! }
        }
        #expect(column("phone.rawAccelZ").allSatisfy { (0.9...1.15).contains(abs($0)) }, "\(column("phone.rawAccelZ"))")
        #expect(Set(column("phone.rawGyroY")).count > 10)
    }

    @Test func fastAndPersonalizeAreRefusedBeforeThePhoneIsWaitedFor() throws {
        let folder = try TemporaryFolder()
        for arguments in [["monitor", "--fast"], ["detect", "--model", "m.model", "--fast"]] {
            let result = try runGesture(arguments + ["--device", "phone"], in: folder.path)
            #expect(result.status == 2, "\(arguments)")
            #expect(
                result.error
                    == "gesture: --fast runs on simulated time, which only the simulated sensor and replays have\n",
                "\(arguments)")
        }
        let personalize = try runGesture(
            ["play", "--model", "m.model", "--personalize", "2", "--user", "ann", "--device", "phone"], in: folder.path)
        #expect(personalize.status == 2)
        #expect(personalize.error.contains("--personalize records with its own run of the phone's page"))
    }
}
