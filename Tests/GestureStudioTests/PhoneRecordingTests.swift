import BrowserDriver
import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// `gesture record --device phone` with the phone's page in headless Chromium, where a player
/// dispatches a known motion at 60 Hz as DeviceMotionEvents, the page's motion API.
@Suite(.serialized) struct PhoneRecordingTests {
    /// The motion the player plays: reading k's acceleration with gravity (m/s²) and rotation rate
    /// (alpha, beta, gamma in °/s). Each is exact in binary, the same in JavaScript and Swift, and
    /// alpha tells the readings apart.
    static func played(_ k: Int) -> [Double] {
        [
            Double((k * 7) % 41 - 20) / 4, Double((k * 11) % 43 - 21) / 4, 9.5 + Double((k * 3) % 13) / 8,
            Double(k) / 8, Double((k * 5) % 37 - 18) * 3, Double((k * 13) % 31 - 15) * 2,
        ]
    }

    static let player = player(
        motion: """
            accelerationIncludingGravity: { x: ((k * 7) % 41 - 20) / 4, y: ((k * 11) % 43 - 21) / 4, z: 9.5 + ((k * 3) % 13) / 8 },
            rotationRate: { alpha: k / 8, beta: ((k * 5) % 37 - 18) * 3, gamma: ((k * 13) % 31 - 15) * 2 },
            """)

    /// A player that dispatches reading k, `motion`'s fields (JavaScript, of k), at 60 Hz as a
    /// DeviceMotionEvent stamped at its own time, k sixtieths of a second from the start, as a
    /// phone's sensor stamps its readings. The page's timers run late on a loaded machine, so each
    /// tick plays every reading due by then: their times stay a sixtieth apart however late.
    static func player(motion: String) -> String {
        """
        window.player = { played: 0, start: performance.now() };
        player.timer = setInterval(() => {
          const due = Math.floor((performance.now() - player.start) * 60 / 1000) + 1;
          for (let k = player.played; k < due; k++) {
            const event = new DeviceMotionEvent("devicemotion", { \(motion) interval: 1000 / 60 });
            Object.defineProperty(event, "timeStamp", { value: player.start + k * 1000 / 60 });
            window.dispatchEvent(event);
            player.played = k + 1;
          }
        }, 1000 / 60);
        true
        """
    }

    /// Reading k as the recorder must have it: g and rad/s, x right, y up the screen, z out of it.
    static func recorded(_ k: Int) -> [Double] {
        let v = played(k)
        let degrees = Double.pi / 180
        return [v[0] / 9.80665, v[1] / 9.80665, v[2] / 9.80665, v[4] * degrees, v[5] * degrees, v[3] * degrees]
    }

    /// Starts `record --device phone` with `arguments`, opens the page it prints in Chromium, taps
    /// Start and plays the motion once the page streams.
    static func recordFromThePage(
        _ arguments: [String], in folder: TemporaryFolder
    ) async throws -> (RunningGesture, BrowserPage) {
        try await PhoneCommandsTests.fromThePage(
            ["record", "--user", "ann", "--gesture", "shake", "--quiet", "--keep"] + arguments, in: folder)
    }

    /// Waits until the page has shown the prompt `text`: the prompts it was sent, kept in order,
    /// since one can come and go between two looks at the page.
    static func waitForPrompt(_ text: String, on page: BrowserPage) async throws {
        try await page.waitUntil("\(text) on the page", "studio.prompts.includes('\(text)')")
    }

    @Test func everyReadingArrivesOnceInOrderOnTheRightAxesAndUnits() async throws {
        let folder = try TemporaryFolder()
        let log = folder.path.appending("readings.log")
        let (gesture, page) = try await Self.recordFromThePage(
            ["--takes", "1", "--take", "2", "--rest", "1", "--rate", "60", "--phone-log", log.string], in: folder)
        try await Self.waitForPrompt("Go", on: page)
        let screenshot = folder.path.appending("phone.png")
        try await page.screenshot(to: screenshot)
        keepScreenshot(screenshot)
        #expect(try await gesture.exitCode() == 0, "\(gesture.errors)")
        _ = try await page.evaluate("clearInterval(player.timer); true")
        let played = try #require(try await page.evaluate("player.played") as? Int)

        // The server's log: every reading the page played, from the first, once and in order.
        let logged = try String(contentsOfFile: log.string, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").map { Double($0)! }
        }
        #expect(!logged.isEmpty && logged.count <= played, "\(logged.count) logged of \(played) played")
        let wrong = logged.enumerated().filter { Array($0.element.dropFirst()) != Self.recorded($0.offset) }
        #expect(wrong.isEmpty, "first wrong: \(wrong.first.map { "\($0.offset): \($0.element)" } ?? "")")
        #expect(zip(logged, logged.dropFirst()).allSatisfy { $0[0] <= $1[0] }, "the page's times go back")

        // The take: the readings of a stretch of the log, each once, or held over a silence.
        let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv"))
        let indices = rows.map { Int(($0.rawRotationRate.z / (Double.pi / 180) * 8).rounded()) }
        for (row, k) in zip(rows, indices) {
            let values = [row.rawAcceleration, row.rawRotationRate].flatMap { [$0.x, $0.y, $0.z] }
            #expect(values == Self.recorded(k), "row of reading \(k)")
        }
        let steps = zip(indices, indices.dropFirst()).map { $1 - $0 }
        #expect(steps.allSatisfy { $0 == 0 || $0 == 1 }, "readings skipped or repeated: \(steps)")
        let sessions = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(sessions.map(\.status) == [.kept])
        #expect(sessions.first?.sampleCount == rows.count)
        #expect(sessions.first?.device == "phone")
        let received = try #require(gesture.errors.firstMatch(of: /phone: (\d+) readings received/).map { Int($0.1)! })
        #expect(received > 0 && received <= logged.count, "\(gesture.errors)")
        #expect(!gesture.errors.contains("lost"), "\(gesture.errors)")
    }

    /// In a folder outside the repository, where no device profile is found, the phone's built-in
    /// profile records at the browser's 60 Hz with hardly a row held; at 120 Hz about half the rows
    /// are held, and `gesture stats` and the studio's sessions table warn of that session only.
    @Test func thePhonesBuiltInProfileRecordsEachReadingAndHeldRowsAreWarnedOf() async throws {
        let folder = try TemporaryFolder()
        #expect(!FileManager.default.fileExists(atPath: folder.path.appending("devices").string))
        for arguments in [[], ["--rate", "120", "--append"]] {
            let (gesture, page) = try await Self.recordFromThePage(
                ["--takes", "1", "--take", "2", "--rest", "1"] + arguments, in: folder)
            #expect(try await gesture.exitCode() == 0, "\(gesture.errors)")
            try await page.close()
        }
        let sessions = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(sessions.map(\.requestedRate) == [60, 120])
        let stats = try runGesture(["stats", "--json"], in: folder.path).succeeded().output
        let summaries = try #require(
            (try JSONSerialization.jsonObject(with: Data(stats.utf8)) as? [String: Any])?["sessions"]
                as? [[String: Any]])
        let held = summaries.compactMap { ($0["timing"] as? [String: Any])?["heldShare"] as? Double }
        #expect(held.count == 2 && held[0] < 0.1 && held[1] > 0.3, "held shares \(held)")
        let warned = sessions[1].id.rawValue
        let table = try runGesture(["stats"], in: folder.path).succeeded().output
        #expect(table.contains("1 session with more than 10 % of rows held"), "\(table)")
        #expect(table.contains("60 Hz for a phone): \(warned)\n"), "\(table)")

        let studio = try RunningGesture(["studio", "--port", "0"], in: folder.path)
        let page = try await Chromium(dyingWithTestsIn: folder.path).open(
            try await studio.address() + "#sessions", on: .laptop)
        try await page.waitUntil("both sessions listed", "studio.sessions !== null && studio.sessions.length === 2")
        let rows = try await page.evaluate(
            "[...document.querySelectorAll('td.held-warning')].map((cell) => cell.parentElement.dataset.id)")
        #expect(rows as? [String] == [warned])
        let screenshot = folder.path.appending("studio-held.png")
        try await page.screenshot(to: screenshot)
        keepScreenshot(screenshot)
        studio.interrupt()
        #expect(try await studio.exitCode() == 0)
    }

    @Test func closingThePageMidTakeEndsTheTakeIncompleteWithItsRows() async throws {
        let folder = try TemporaryFolder()
        let (gesture, page) = try await Self.recordFromThePage(["--takes", "2", "--take", "30"], in: folder)
        try await Self.waitForPrompt("Go", on: page)
        try await page.close()
        #expect(try await gesture.exitCode() == 1)
        let errors = gesture.errors.split(separator: "\n")
        let message = try #require(errors.last)
        #expect(
            message.hasPrefix("gesture: phone: the phone's page stopped delivering (the connection closed)"),
            "\(gesture.errors)")
        #expect(message.contains("; 1 take, ") && message.hasSuffix(" rows saved, take 1 marked incomplete"))
        let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv"))
        let sessions = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(sessions.map(\.status) == [.incomplete])
        #expect(sessions.first?.sampleCount == rows.count)
        #expect(rows.count > 0)
        try runGesture(["check"], in: folder.path).succeeded()
    }
}

/// Copies a screenshot to `$GESTURELAB_SCREENSHOTS`, when it is set, for a person to look at.
func keepScreenshot(_ path: FilePath) {
    guard let folder = ProcessInfo.processInfo.environment["GESTURELAB_SCREENSHOTS"] else { return }
    let name = path.lastComponent?.string ?? "screenshot.png"
    try? FileManager.default.removeItem(atPath: folder + "/" + name)
    try? FileManager.default.copyItem(atPath: path.string, toPath: folder + "/" + name)
}
