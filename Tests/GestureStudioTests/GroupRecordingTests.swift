import BrowserDriver
import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

/// A group recording in the studio's record view, with two phones' pages in browsers of their own
/// playing a known motion: each phone records as its own user, with its own prompts; the laptop
/// shows and says them once; a phone that drops out ends its own part only.
@Suite(.serialized) struct GroupRecordingTests {
    /// Two phones paired and streaming, listed in the group's table with their users typed.
    static func pairTwoPhones(
        on studio: StudioViewsTests.Studio, users: [String]
    ) async throws -> [BrowserPage] {
        var phones: [BrowserPage] = []
        for number in 1...2 {
            let phone = try await studio.phonePage(playing: PhoneRecordingTests.player, browser: "phone-\(number)")
            #expect(try await phone.evaluate("studio.name") as? String == "phone \(number)")
            phones.append(phone)
        }
        try await studio.page.waitUntil(
            "both phones listed as streaming",
            "studio.phones.filter((phone) => phone.state === 'streaming').length === 2 && "
                + "document.querySelectorAll('#group-phones input').length === 2")
        let devices = try await studio.page.evaluate(
            "api('/api/devices').then((listing) => listing.devices.map((device) => device.id))")
        #expect((devices as? [String])?.filter { $0.hasPrefix("phone") } == ["phone", "phone:1", "phone:2"])
        for (number, user) in zip(1..., users) {
            try await RecordingViewTests.type(user, into: "group-user-\(number)", on: studio.page)
        }
        return phones
    }

    /// Waits as `BrowserPage.waitUntil` does, and fails saying what the page shows and what the
    /// studio says of the recording's takes.
    static func waitUntil(_ what: String, _ condition: String, on page: BrowserPage) async throws {
        do {
            try await page.waitUntil(what, condition)
        } catch {
            let takes =
                "(progress) => JSON.stringify(progress.takes.map((take) => [take.record.id, take.record.status, take.discarding]))"
            let shown = try await page.evaluate(
                "api('/api/recording').then((progress) => $('record-status').textContent + '; shown: ' + (\(takes))(studio.recording) + '; studio: ' + (\(takes))(progress))"
            )
            Issue.record("\(shown ?? "")")
            throw error
        }
    }

    @Test func twoPhonesRecordAtOnceEachAsItsOwnUser() async throws {
        let wavs = try TemporaryFolder()
        let studio = try await RecordingViewTests.openRecordView(["--speech-to", wavs.path.string])
        let page = studio.page
        let phones = try await Self.pairTwoPhones(on: studio, users: ["ann", "ben"])
        try await RecordingViewTests.fill(device: "sim", user: "", gesture: "shake", takes: "2", on: page)

        for (body, error) in [
            (
                #"{"phones":[{"phone":1,"user":"ann"},{"phone":3,"user":"cat"}],"gesture":"shake"}"#,
                "phone 3 is not streaming: open the studio's phone page on it and tap Start"
            ),
            (
                #"{"phones":[{"phone":1,"user":"ann"},{"phone":2,"user":"ann"}],"gesture":"shake"}"#,
                "ann is named for two phones: each phone records its own user"
            ),
        ] {
            let answer = try await page.request("/api/recording", body)
            #expect(answer.status == 400 && answer.error == error, "\(body): \(answer)")
        }
        #expect(
            try await page.evaluate("api('/api/recording').then((progress) => progress.state)") as? String == "idle")

        try await page.click("#record-group")
        try await page.waitUntil("the group recording", "studio.recording.state === 'recording'")
        for phone in phones { try await PhoneRecordingTests.waitForPrompt("Go", on: phone) }
        try await page.waitUntil("Go on the laptop's page", "studio.recording.prompts.includes('Go')")
        try await studio.screenshot("record-group")

        // Keep or discard per take per phone: ann's first take and ben's second discarded.
        try await page.waitUntil(
            "ann's take 1 ended", "studio.recording.takes.some((take) => take.record.user === 'ann')")
        let annFirst = try #require(
            try await page.evaluate("studio.recording.takes.find((take) => take.record.user === 'ann').record.id")
                as? String)
        try await page.click("#record-takes button[data-discard=\"\(annFirst)\"]")
        try await page.waitUntil("the group finished", "studio.recording.state === 'finished'")
        for phone in phones { try await PhoneRecordingTests.waitForPrompt("Done", on: phone) }
        let benLast = try #require(
            try await page.evaluate("studio.recording.takes.filter((take) => take.record.user === 'ben')[1].record.id")
                as? String)
        try await page.click("#record-takes button[data-discard=\"\(benLast)\"]")
        try await Self.waitUntil(
            "both discarded",
            "studio.recording.takes.filter((take) => take.record.status === 'discarded').length === 2",
            on: page)
        #expect(
            try await page.evaluate("studio.recording.members.map((member) => member.state)") as? [String]
                == ["finished", "finished"])

        // Each phone's takes are its user's sessions in the one catalog, as `gesture record` makes them.
        let sessions = try studio.sessions()
        for (user, statuses) in [("ann", [SessionStatus.discarded, .kept]), ("ben", [.kept, .discarded])] {
            let own = sessions.filter { $0.user.rawValue == user }
            #expect(own.map(\.status) == statuses && own.map(\.take) == [1, 2], "\(user)")
            #expect(own.allSatisfy { $0.device == "phone" && $0.gesture.rawValue == "shake" && $0.alignment != nil })
            let file = studio.file(of: user)
            for record in own {
                let path = record.status == .kept ? file : studio.folder.recordings.discardedFile(for: file)
                let rows = try readRows(path).filter { $0.session == record.id }
                #expect(rows.count == record.sampleCount && !rows.isEmpty, "\(record.id)")
                #expect([LabelSpan](runsOf: rows) == record.labels, "\(record.id)")
            }
        }
        let ann = sessions.filter { $0.user.rawValue == "ann" }, ben = sessions.filter { $0.user.rawValue == "ben" }
        #expect(zip(ann, ben).allSatisfy { $0.promptFrom == $1.promptFrom && $0.promptTo == $1.promptTo })
        try runGesture(["check"], in: studio.folder.path).succeeded()

        // Each phone showed its own prompts; the laptop showed and said phone 1's, once each.
        let laptop = try #require(try await page.evaluate("studio.recording.prompts") as? [String])
        for phone in phones {
            let shown = try #require(try await phone.evaluate("studio.prompts") as? [String])
            #expect(shown == laptop + ["Done"], "\(shown) against \(laptop)")
        }
        let spoken = try FileManager.default.contentsOfDirectory(atPath: wavs.path.string)
        #expect(spoken.count == laptop.count, "\(spoken.count) spoken, \(laptop.count) shown")
    }

    @Test func aPhoneDroppingMidTakeEndsOnlyItsOwnPart() async throws {
        let studio = try await RecordingViewTests.openRecordView(["--quiet"])
        let page = studio.page
        let phones = try await Self.pairTwoPhones(on: studio, users: ["ann", "ben"])
        try await RecordingViewTests.fill(device: "sim", user: "", gesture: "shake", takes: "1", take: "8", on: page)
        try await page.click("#record-group")
        // Phone 1, whose prompts the laptop says, drops mid-take; phone 2's take goes on to be kept.
        try await PhoneRecordingTests.waitForPrompt("Go", on: phones[0])
        try await phones[0].close()
        try await page.waitUntil(
            "phone 1's part stopped",
            "studio.recording.members.length === 2 && studio.recording.members[0].state === 'stopped'")
        try await page.waitUntil("the group ended", "studio.recording.state === 'stopped'")
        try await PhoneRecordingTests.waitForPrompt("Done", on: phones[1])
        #expect(try await phones[1].evaluate("studio.connected") as? Bool == true)
        let members = try #require(try await page.evaluate("studio.recording.members") as? [[String: Any]])
        #expect(members.map { $0["state"] as? String } == ["stopped", "finished"])
        let error = try #require(members[0]["error"] as? String)
        #expect(error.hasPrefix("phone: the phone's page stopped delivering (the connection closed)"), "\(error)")
        let status = try await page.text("#record-status")
        #expect(status.hasPrefix("ann on phone:1: phone: the phone's page stopped delivering"), "\(status)")
        // The laptop went on with phone 2's prompts, to the end.
        try await page.waitUntil(
            "the last prompt on the laptop", "studio.recording.prompts.includes('Session complete')")
        try await studio.screenshot("record-group-dropped")

        let sessions = try studio.sessions()
        let ann = sessions.filter { $0.user.rawValue == "ann" }, ben = sessions.filter { $0.user.rawValue == "ben" }
        #expect(ann.map(\.status) == [.incomplete] && ben.map(\.status) == [.kept])
        for (user, records) in [("ann", ann), ("ben", ben)] {
            let rows = try readRows(studio.file(of: user))
            #expect(rows.count == records.first?.sampleCount && !rows.isEmpty, "\(user)")
        }
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func stopEndsEveryPhonesTakeIncomplete() async throws {
        let studio = try await RecordingViewTests.openRecordView(["--quiet"])
        let page = studio.page
        let phones = try await Self.pairTwoPhones(on: studio, users: ["ann", "ben"])
        // The live view reads phone 2 alone; recording the group stops it, as the phones' readings go to one reader.
        _ = try await page.evaluate(
            "loadDevices().then(() => { document.getElementById('live-device').value = 'phone:2'; "
                + "document.getElementById('live-start').click(); return true; })")
        try await page.waitUntil(
            "phone 2 live", "studio.live.device === 'phone:2' && studio.live.readings > 0")
        try await RecordingViewTests.fill(device: "sim", user: "", gesture: "shake", takes: "2", take: "600", on: page)
        try await page.click("#record-group")
        for phone in phones { try await PhoneRecordingTests.waitForPrompt("Go", on: phone) }
        // A start while the group records (its takes last 600 s: it cannot have ended) is refused.
        let second = try await page.request("/api/recording", #"{"device":"sim","user":"cat","gesture":"chop"}"#)
        #expect(second.status == 409 && second.error.hasPrefix("ann, ben are recording shake (take "), "\(second)")
        try await page.click("#record-stop")
        try await page.waitUntil("the group stopped", "studio.recording.state === 'stopped'")
        for phone in phones { try await PhoneRecordingTests.waitForPrompt("Stopped", on: phone) }
        #expect(
            try await page.evaluate("studio.recording.members.map((member) => member.state)") as? [String]
                == ["stopped", "stopped"])
        let sessions = try studio.sessions()
        #expect(sessions.map(\.user.rawValue).sorted() == ["ann", "ben"])
        #expect(sessions.allSatisfy { $0.status == .incomplete && $0.reason == "stopped in the studio" })
        for user in ["ann", "ben"] {
            let recorded = sessions.first { $0.user.rawValue == user }
            #expect(try readRows(studio.file(of: user)).count == recorded?.sampleCount, "\(user)")
        }
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }
}
