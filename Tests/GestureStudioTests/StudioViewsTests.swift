import BrowserDriver
import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `gesture studio`'s views in headless Chromium: the sessions table with `clean`'s findings and
/// filters, a session's plot whose band edges are dragged with the pointer to relabel, undo,
/// discard and restore, the live signal, and detections on the simulated hand.
@Suite struct StudioViewsTests {
    /// Recordings of ann (shake, chop) and ben (shake, his first take with a dead axis), and a
    /// studio serving them, open in Chromium on a laptop's screen.
    struct Studio {
        let folder: TemporaryFolder
        let gesture: RunningGesture
        let chromium: Chromium
        let page: BrowserPage

        init(
            arguments: [String] = [], environment: [String: String] = [:],
            prepare: (TemporaryFolder) throws -> Void = Studio.record
        ) async throws {
            folder = try TemporaryFolder()
            try prepare(folder)
            gesture = try RunningGesture(
                ["studio", "--port", "0"] + arguments, in: folder.path, environment: environment)
            chromium = try await Chromium(dyingWithTestsIn: folder.path)
            page = try await chromium.open(try await gesture.address(), on: .laptop)
            try await page.waitUntil("the devices listed", "studio.devices !== undefined")
        }

        static func record(into folder: TemporaryFolder) throws {
            for (user, gesture, faults) in [("ann", "shake", ""), ("ann", "chop", ""), ("ben", "shake", "dead-axis@1")]
            {
                try runGesture(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate",
                        "50", "--fast",
                        "--quiet", "--keep", "--append", "--seed", "3", "--sim-faults", faults,
                    ], in: folder.path
                ).succeeded()
            }
        }

        func show(_ view: String) async throws {
            _ = try await page.evaluate("location.hash = '\(view)'; true")
        }

        func screenshot(_ name: String) async throws {
            let path = folder.path.appending("studio-\(name).png")
            try await page.screenshot(to: path)
            keepScreenshot(path)
        }

        /// The phone's page in a browser of its own (a tab behind another would have its timers
        /// slowed), streaming what `player` dispatches, and the live view of the phone started.
        func livePhone(playing player: String) async throws -> BrowserPage {
            let phone = try await phonePage(playing: player)
            _ = try await page.evaluate(
                "document.getElementById('live-device').value = 'phone'; document.getElementById('live-start').click(); true"
            )
            return phone
        }

        /// The phone's page in a browser of its own, streaming what `player` dispatches; the
        /// browser keeps its files in the folder `browser`.
        func phonePage(playing player: String, browser: String = "phone") async throws -> BrowserPage {
            let address = try await gesture.address()
            let phoneFolder = folder.path.appending(browser)
            try FileManager.default.createDirectory(atPath: phoneFolder.string, withIntermediateDirectories: true)
            let phone = try await Chromium(dyingWithTestsIn: phoneFolder).open(
                address.replacingOccurrences(of: "/?token=", with: "/phone?token="))
            try await phone.waitUntil("the phone's page connected", "studio.connected")
            _ = try await phone.evaluate("document.getElementById('start').click(); true")
            try await phone.waitUntil("the phone streaming", "studio.source === 'device-motion'")
            _ = try await phone.evaluate(player)
            return phone
        }

        func file(of user: String) -> FilePath { folder.recordings.root.appending("\(user)-recordings.csv") }

        func sessions() throws -> [SessionRecord] {
            try Catalog(path: folder.recordings.catalogPath.string).sessions()
        }
    }

    @Test func theTableListsEverySessionWithCleansFindingsAndFilters() async throws {
        let studio = try await Studio()
        try await studio.show("sessions")
        try await studio.page.waitUntil(
            "six sessions listed", "studio.sessions !== null && studio.sessions.length === 6")
        try await studio.screenshot("sessions")

        let clean = try runGesture(["clean", "--json"], in: studio.folder.path).succeeded().output
        let bad = clean.split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(!bad.isEmpty, "the dead axis was not found: \(clean)")
        for session in try studio.sessions() {
            let kinds =
                bad.first { $0["session"] as? String == session.id.rawValue }.map {
                    ($0["findings"] as! [[String: Any]]).map { $0["kind"] as! String }
                } ?? []
            let shown = try await studio.page.evaluate(
                "[...document.querySelectorAll('tr[data-id=\"\(session.id)\"] .finding')].map(f => f.textContent)")
            #expect(shown as? [String] == kinds, "\(session.id)")
        }

        try await filter("filter-user", to: "'ben'", expecting: 2, on: studio.page)
        try await filter("filter-user", to: "''", expecting: 6, on: studio.page)
        try await filter("filter-gesture", to: "'chop'", expecting: 2, on: studio.page)
        try await filter("filter-gesture", to: "''", expecting: 6, on: studio.page)
        _ = try await studio.page.evaluate(
            "document.getElementById('filter-findings').checked = true; showSessions(); true")
        try await studio.page.waitUntil("the sessions with findings", "studio.sessions.length === \(bad.count)")
    }

    private func filter(_ id: String, to value: String, expecting count: Int, on page: BrowserPage) async throws {
        _ = try await page.evaluate("document.getElementById('\(id)').value = \(value); showSessions(); true")
        try await page.waitUntil("\(count) sessions after \(id)", "studio.sessions.length === \(count)")
    }

    /// Drags an edge of the session's band `pixels` to the right (left if negative) and returns the relabel made.
    private func drag(
        _ side: String, by pixels: Double, on studio: Studio, changes: Int
    ) async throws -> (from: Double, to: Double, label: String) {
        let span = try await dragEdge(side, by: pixels, on: studio, changes: changes, making: "relabel")
        return (span["from"] as! Double, span["to"] as! Double, span["label"] as! String)
    }
    /// Drags the edge `side` of the plot `pixels` to the right (left if negative) with the mouse,
    /// as a person would, and waits for the change the page made; returns its `kind`'s parameters.
    private func dragEdge(
        _ side: String, by pixels: Double, on studio: Studio, changes: Int, making kind: String
    ) async throws -> [String: Any] {
        let (x, y) = try await studio.page.middle(of: ".edge[data-side=\(side)]")
        try await studio.page.mouse("mousePressed", x, y)
        for step in 1...4 { try await studio.page.mouse("mouseMoved", x + pixels * Double(step) / 4, y) }
        try await studio.page.mouse("mouseReleased", x + pixels, y)
        try await studio.page.waitUntil("change \(changes) made", "studio.changes.length === \(changes)")
        return try #require(
            try await studio.page.evaluate("studio.changes[\(changes - 1)].request.\(kind)") as? [String: Any])
    }

    /// The labels of every row of `user`'s file, in file order, with the session and time of each.
    private func labels(of user: String, in studio: Studio) throws -> [(SessionID, Double, String)] {
        try readRows(studio.file(of: user)).map { ($0.session, $0.timestamp, $0.activity.rawValue) }
    }

    @Test func draggingABandsEdgesRelabelsExactlyTheRowsBetweenAndUndoTakesItBack() async throws {
        let studio = try await Studio()
        let session = try #require(
            try studio.sessions().first { $0.user.rawValue == "ann" && $0.gesture.rawValue == "shake" })
        try await studio.show("session/\(session.id)")
        try await studio.page.waitUntil("the plot", "studio.session !== null && studio.session.id === '\(session.id)'")
        try await studio.screenshot("session")
        let before = try labels(of: "ann", in: studio)
        let shake = before.filter { $0.0 == session.id && $0.2 == "shake" }.map(\.1)
        let (first, last) = (try #require(shake.first), try #require(shake.last))

        // The end dragged right: the rest rows from just after the band to where it was let go become shake.
        let grown = try await drag("end", by: 60, on: studio, changes: 1)
        #expect(grown.label == "shake")
        let grownRows = before.filter { $0.0 == session.id && $0.1 >= grown.from && $0.1 <= grown.to }
        #expect(!grownRows.isEmpty && grownRows.allSatisfy { $0.2 == "rest" })
        #expect(!before.contains { $0.0 == session.id && $0.1 > last && $0.1 < grown.from }, "a row skipped")
        let afterGrowing = try labels(of: "ann", in: studio)
        #expect(afterGrowing.count == before.count)
        for (old, new) in zip(before, afterGrowing) {
            let inside = old.0 == session.id && old.1 >= grown.from && old.1 <= grown.to
            #expect(new.0 == old.0 && new.1 == old.1 && new.2 == (inside ? "shake" : old.2), "row at \(old.1)")
        }
        try runGesture(["check"], in: studio.folder.path).succeeded()

        // The start dragged right: the band's first rows become rest.
        let shrunk = try await drag("start", by: 40, on: studio, changes: 2)
        #expect(shrunk.label == "rest" && shrunk.from == first && shrunk.to < grown.to)
        let afterShrinking = try labels(of: "ann", in: studio)
        for (old, new) in zip(afterGrowing, afterShrinking) {
            let inside = old.0 == session.id && old.1 >= shrunk.from && old.1 <= shrunk.to
            #expect(new.2 == (inside ? "rest" : old.2), "row at \(old.1)")
        }
        try runGesture(["check"], in: studio.folder.path).succeeded()
        try await studio.screenshot("session-relabeled")

        _ = try await studio.page.evaluate("document.getElementById('session-undo').click(); true")
        try await studio.page.waitUntil("the undo", "studio.changes.length === 3")
        #expect(try labels(of: "ann", in: studio).map(\.2) == afterGrowing.map(\.2))
        let record = try #require(try studio.sessions().first { $0.id == session.id })
        let spans = record.labels?.filter { !$0.label.isRest } ?? []
        #expect(spans.map(\.from).min() == first && spans.map(\.to).max() == grown.to, "\(spans)")
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func draggingTheKeptRowsEndsTrimsTheSessionAndUndoBringsTheRowsBack() async throws {
        let studio = try await Studio()
        let session = try #require(try studio.sessions().first { $0.user.rawValue == "ann" })
        let before = try readRows(studio.file(of: "ann"))
        try await studio.show("session/\(session.id)")
        try await studio.page.waitUntil("the plot", "studio.session !== null && studio.session.id === '\(session.id)'")

        let trim = try await dragEdge("kept-start", by: 120, on: studio, changes: 1, making: "trim")
        let (from, to) = (trim["from"] as! Double, trim["to"] as! Double)
        let rows = before.filter { $0.session == session.id }
        #expect(from > rows.first!.timestamp && to == rows.last!.timestamp)
        let kept = try readRows(studio.file(of: "ann"))
        #expect(kept == before.filter { $0.session != session.id || $0.timestamp >= from })
        let discarded = try readRows(studio.folder.recordings.discardedFolder.appending("ann-recordings.csv"))
        #expect(discarded == rows.filter { $0.timestamp < from })
        #expect(try studio.sessions().first { $0.id == session.id }?.sampleCount == rows.count { $0.timestamp >= from })
        try runGesture(["check"], in: studio.folder.path).succeeded()
        try await studio.page.waitUntil("the trimmed rows shown", "studio.session.rows.some(row => row[8] === 0)")
        try await studio.screenshot("session-trimmed")

        _ = try await studio.page.evaluate("document.getElementById('session-undo').click(); true")
        try await studio.page.waitUntil("the undo", "studio.changes.length === 2")
        #expect(try readRows(studio.file(of: "ann")).filter { $0.session == session.id } == rows)
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func discardAndRestoreMoveTheRowsAndTheCheckAgrees() async throws {
        let studio = try await Studio()
        let session = try #require(try studio.sessions().first { $0.user.rawValue == "ben" })
        let rows = try readRows(studio.file(of: "ben")).filter { $0.session == session.id }
        try await studio.show("session/\(session.id)")
        try await studio.page.waitUntil("the plot", "studio.session !== null && studio.session.id === '\(session.id)'")

        _ = try await studio.page.evaluate("document.getElementById('session-discard').click(); true")
        try await studio.page.waitUntil("discarded", "studio.session.record.status === 'discarded'")
        try await studio.screenshot("session-discarded")
        #expect(try studio.sessions().first { $0.id == session.id }?.status == .discarded)
        let kept = try readRows(studio.file(of: "ben"))
        #expect(!kept.contains { $0.session == session.id })
        let discarded = studio.folder.recordings.discardedFolder.appending("ben-recordings.csv")
        #expect(try readRows(discarded).filter { $0.session == session.id } == rows)
        try runGesture(["check"], in: studio.folder.path).succeeded()

        _ = try await studio.page.evaluate("document.getElementById('session-restore').click(); true")
        try await studio.page.waitUntil("restored", "studio.session.record.status === 'kept'")
        #expect(try readRows(studio.file(of: "ben")).filter { $0.session == session.id } == rows)
        try runGesture(["check"], in: studio.folder.path).succeeded()
    }

    @Test func changesWithoutTheTokenOrMalformedAreRefusedAndTouchNothing() async throws {
        let studio = try await Studio()
        let session = try #require(try studio.sessions().first)
        let file = try String(contentsOfFile: studio.file(of: session.user.rawValue).string, encoding: .utf8)
        let catalog = try studio.sessions()
        let base = String(try await studio.gesture.address().prefix { $0 != "?" }.dropLast())
        let token = try #require(try await studio.gesture.address().firstMatch(of: /token=([0-9a-f]{32})$/)?.1)
        let relabel = #"{"relabel":{"from":0,"to":100,"label":"chop"}}"#
        #expect(try await post(relabel, to: base + "/api/sessions/\(session.id)") == 401)
        #expect(try await post(relabel, to: base + "/api/sessions/\(session.id)?token=\(wrong(token))") == 401)
        #expect(try await post(#"{"rename":{}}"#, to: base + "/api/sessions/\(session.id)?token=\(token)") == 400)
        #expect(try await post("not json", to: base + "/api/sessions/\(session.id)?token=\(token)") == 400)
        let huge = #"{"relabel":{"from":0,"to":1,"label":""# + String(repeating: "a", count: 10_000) + #""}}"#
        #expect(try await post(huge, to: base + "/api/sessions/\(session.id)?token=\(token)") >= 400)
        #expect(try await post(relabel, to: base + "/api/sessions/../../etc?token=\(token)") >= 400)
        #expect(try await post(relabel, to: base + "/api/sessions/nosuch?token=\(token)") == 422)
        #expect(try String(contentsOfFile: studio.file(of: session.user.rawValue).string, encoding: .utf8) == file)
        #expect(try studio.sessions() == catalog)
    }

    private func post(_ body: String, to address: String) async throws -> Int {
        var request = URLRequest(url: URL(string: address)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    @Test func theLiveViewDrawsTheSimulatedSensorAndAReplay() async throws {
        let studio = try await Studio()
        let devices = try await studio.page.evaluate("studio.devices.devices.map(d => d.id)") as? [String] ?? []
        #expect(["sim", "phone", "replay:ann", "replay:ben"].allSatisfy(devices.contains), "\(devices)")
        _ = try await studio.page.evaluate(
            "document.getElementById('live-device').value = 'sim'; document.getElementById('live-start').click(); true")
        try await studio.page.waitUntil("frames drawn", "studio.live.readings > 100 && studio.live.frames > 10")
        let last = try #require(try await studio.page.evaluate("studio.live.last") as? [Double])
        #expect(last.count == 7 && last.allSatisfy(\.isFinite))
        try await studio.screenshot("live")
        _ = try await studio.page.evaluate("document.getElementById('live-stop').click(); true")
        try await studio.page.waitUntil("stopped", "document.getElementById('live-start').disabled === false")

        _ = try await studio.page.evaluate(
            "document.getElementById('live-device').value = 'replay:ben'; document.getElementById('live-start').click(); true"
        )
        try await studio.page.waitUntil(
            "the replay read", "studio.live.device === 'replay:ben' && studio.live.readings > 50")
    }

    @Test func theLiveViewDrawsThePhoneAndSaysWhenItsPageCloses() async throws {
        let studio = try await Studio()
        let phone = try await studio.livePhone(playing: PhoneRecordingTests.player)
        try await studio.page.waitUntil(
            "the phone's readings drawn", "studio.live.readings > 30 && studio.live.frames > 5")
        let last = try #require(try await studio.page.evaluate("studio.live.last") as? [Double])
        let k = Int((last[6] / (Double.pi / 180) * 8).rounded())
        // Through two JSON parsers, the last digit may differ.
        let expected = PhoneRecordingTests.recorded(k)
        #expect(zip(last.dropFirst(), expected).allSatisfy { abs($0 - $1) <= 1e-12 }, "\(last) is not reading \(k)")
        #expect(k > 0, "the readings of the phone did not move on")
        try await studio.screenshot("live-phone")

        try await phone.close()
        try await studio.page.waitUntil("the page's end told", "studio.live.error !== null")
        let error = try #require(try await studio.page.evaluate("studio.live.error") as? String)
        #expect(error.hasPrefix("phone: the phone's page stopped delivering"), "\(error)")
    }

    /// What the live socket says first when the page opens it with `query` (a JavaScript object)
    /// and sends `messages`: its error; nil for readings; "closed" if it closes without either.
    private func liveSocket(
        _ query: String, sending messages: [String] = [], on page: BrowserPage
    ) async throws -> String? {
        let sent = String(decoding: try JSONSerialization.data(withJSONObject: messages), as: UTF8.self)
        return try await page.evaluate(
            """
            new Promise((resolve) => {
              const socket = new WebSocket("ws://" + location.host + address("/live/socket", \(query)));
              socket.onopen = () => { for (const message of \(sent)) socket.send(message); };
              socket.onmessage = (event) => {
                const message = JSON.parse(event.data);
                if (message.error || message.readings) { resolve(message.error || null); socket.close(); }
              };
              socket.onclose = () => resolve("closed");
            })
            """) as? String
    }

    /// The live socket opens only the devices the studio lists: a path, or a user that is not a
    /// name, is an error of the view's; junk from a page is ignored, or closes only its view.
    @Test func theLiveSocketNamesNoFileAndSurvivesJunk() async throws {
        let studio = try await Studio(prepare: { _ in })
        let nosuch = try #require(try await liveSocket(#"{device: "/dev/input/event0"}"#, on: studio.page))
        #expect(nosuch.hasPrefix("/dev/input/event0: no such device"), "\(nosuch)")
        for path in ["replay:../catalog.sqlite", "replay:/etc/passwd"] {
            let refused = try #require(try await liveSocket(#"{device: "\#(path)"}"#, on: studio.page))
            #expect(refused.hasPrefix("\(path): "), "\(refused)")
        }
        #expect(try await liveSocket(#"{device: "sim", model: 3}"#, on: studio.page) == "no model 3")
        let junk = ["not JSON", #"{"perform":"no such gesture!"}"#, #"{"perform":7}"#]
        #expect(try await liveSocket(#"{device: "sim"}"#, sending: junk, on: studio.page) == nil)
        let oversized = try await liveSocket(
            #"{device: "sim"}"#, sending: [String(repeating: "x", count: 5000)], on: studio.page)
        #expect(oversized == nil || oversized == "closed")
        #expect(try await liveSocket(#"{device: "sim"}"#, on: studio.page) == nil)
    }

    /// Three simulated people's shakes and chops at 25 Hz, and a model trained on them.
    static func trainModel(in folder: TemporaryFolder) throws {
        for user in ["ann", "ben", "cat"] {
            for gesture in ["shake", "chop"] {
                try runGesture(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate",
                        "25", "--fast",
                        "--quiet", "--keep", "--append", "--seed", "3",
                    ], in: folder.path
                ).succeeded()
            }
        }
        try runGesture(["train", "--output", "m.model"], in: folder.path).succeeded()
    }

    /// A bar for each of the model's classes, rest included, as long as the latest prediction's
    /// probability of it; and no big label of its own.
    private func expectEveryClassesBar(on page: BrowserPage) async throws {
        let shown = try #require(
            try await page.evaluate(
                """
                ({
                  classes: [...document.querySelectorAll("#detect-classes .class-row")].map((row) => row.dataset.class),
                  widths: [...document.querySelectorAll("#detect-classes .class-bar")].map((bar) => parseFloat(bar.style.width)),
                  probabilities: studio.prediction.probabilities,
                  model: studio.devices.models[0].classes,
                  labelled: document.getElementById("detection-now") !== null,
                })
                """) as? [String: Any])
        let classes = try #require(shown["classes"] as? [String]), widths = try #require(shown["widths"] as? [Double])
        let probabilities = try #require(shown["probabilities"] as? [Double])
        #expect(classes == shown["model"] as? [String] && classes.contains("rest"), "\(classes)")
        #expect(widths.count == probabilities.count)
        #expect(zip(widths, probabilities).allSatisfy { abs($0 - $1 * 100) < 0.06 }, "\(widths) for \(probabilities)")
        #expect(abs(probabilities.reduce(0, +) - 1) < 1e-3)
        #expect(shown["labelled"] as? Bool == false)
    }

    /// Each window of a session as the model classifies it, offline as `gesture evaluate` does; a
    /// session recorded at another rate than the model's is said in words.
    @Test func aSessionsWindowsAreClassifiedAsEvaluateScoresThem() async throws {
        let studio = try await Studio(arguments: ["--model", "m.model"]) { folder in
            try Self.trainModel(in: folder)
            try runGesture(
                [
                    "record", "--device", "sim", "--user", "dan", "--gesture", "shake", "--rate", "50", "--fast",
                    "--quiet",
                ]
                    + ["--keep", "--seed", "4"], in: folder.path
            ).succeeded()
        }
        let sessions = try studio.sessions()
        let chop = try #require(sessions.first { $0.user.rawValue == "ben" && $0.gesture == .chop }).id.rawValue
        let evaluate = try runGesture(["evaluate", "m.model", "--per-session", "--json"], in: studio.folder.path)
        let scored = try evaluate.output.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let expected = try #require(scored.first { $0["session"] as? String == chop }?["windowAccuracy"] as? Double)
        func classify(_ id: String) async throws -> String {
            try await studio.show("session/\(id)")
            try await studio.page.waitUntil(
                "session \(id) shown", "studio.session?.id === '\(id)' && studio.windows === null")
            try await studio.page.click("#session-classify")
            try await studio.page.waitUntil(
                "its windows classified", "document.getElementById('session-windows-status').textContent !== ''")
            return try #require(
                try await studio.page.evaluate("document.getElementById('session-windows-status').textContent")
                    as? String)
        }
        let said = try await classify(chop)
        let accuracy = try #require(try await studio.page.evaluate("studio.windows.accuracy") as? Double)
        #expect(abs(accuracy - expected) < 1e-9, "evaluate: \(expected)")
        let windows = try #require(try await studio.page.evaluate("studio.windows.windows.length") as? Int)
        let wrong = try #require(
            try await studio.page.evaluate("studio.windows.windows.filter(w => w.label !== w.predicted).length") as? Int
        )
        #expect(
            try await studio.page.evaluate("document.querySelectorAll('#session-windows tr').length") as? Int == windows
        )
        #expect(
            try await studio.page.evaluate("document.querySelectorAll('#session-windows tr.wrong').length") as? Int
                == wrong)
        #expect(said == "\(windows - wrong) of \(windows) windows right (\(String(format: "%.1f", 100 * expected)) %)")
        #expect(try await studio.page.evaluate("studio.windows.windows[0].start") as? Double == 0)
        try await studio.screenshot("session-windows")
        let fast = try #require(sessions.first { $0.user.rawValue == "dan" }).id.rawValue
        #expect(
            try await classify(fast)
                == "session \(fast) was recorded at 50 Hz and the model reads 25 Hz: `gesture downsample` it first")
    }

    @Test func theDetectionViewShowsTheGesturesTheSimulatedHandPerforms() async throws {
        let studio = try await Studio(arguments: ["--model", "m.model"], prepare: Self.trainModel)
        try await studio.show("detect")
        // A run each: a detection holds the next off for a gesture's length (the cooldown).
        for gesture in ["shake", "chop"] {
            _ = try await studio.page.evaluate(
                "document.getElementById('detect-device').value = 'sim'; "
                    + "document.getElementById('detect-start').click(); true")
            try await studio.page.waitUntil("predictions", "studio.predictions > 0")
            try await expectEveryClassesBar(on: studio.page)
            _ = try await studio.page.evaluate(
                "document.querySelector('button[data-gesture=\(gesture)]').click(); true")
            try await studio.page.waitUntil("\(gesture) detected", "studio.detections.length > 0")
            try await expectEveryClassesBar(on: studio.page)
            try await studio.screenshot("detect-\(gesture)")
            #expect(try await studio.page.evaluate("studio.detections.map(d => d.gesture)") as? [String] == [gesture])
            let newest = try await studio.page.evaluate("document.querySelector('#detections li.newest').textContent")
            #expect((newest as? String)?.contains("  \(gesture)  ") == true, "\(newest ?? "no detection listed")")
            _ = try await studio.page.evaluate("document.getElementById('detect-stop').click(); true")
            try await studio.page.waitUntil("stopped", "document.getElementById('detect-start').disabled === false")
        }
    }
}

extension BrowserPage {
    /// A mouse event at a point of the page, with the left button, as a hand makes it.
    func mouse(_ type: String, _ x: Double, _ y: Double) async throws {
        try await send(
            "Input.dispatchMouseEvent",
            [
                "type": type, "x": x, "y": y, "button": "left", "buttons": type == "mouseReleased" ? 0 : 1,
                "clickCount": 1,
            ])
    }

    /// Presses and releases the left button over the middle of the element `selector` finds. The
    /// page may move it between the look and the press (a take's row added, a status line grown):
    /// a press or a release that lands elsewhere is kept from the page and made again, as a person
    /// looks again, so that a click never reaches what it was not meant for. A disabled button
    /// takes no click, and is not tried again.
    func click(_ selector: String) async throws {
        for _ in 1...20 {
            let (x, y) = try await guardedMiddle(of: selector)
            try await mouse("mousePressed", x, y)
            try await mouse("mouseReleased", x, y)
            if try await evaluate("clickGuard.end()") as? Bool == true { return }
        }
        Issue.record("the page kept moving \(selector) from under the pointer")
    }

    /// The middle of the element `selector` finds, with the page's pointer and mouse events held
    /// back until `clickGuard.end()` unless they press and release inside it.
    private func guardedMiddle(of selector: String) async throws -> (x: Double, y: Double) {
        let box = try #require(
            try await evaluate(
                """
                (() => {
                  const target = document.querySelector('\(selector)');
                  const guard = { pressed: false, clicked: false };
                  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
                  const check = (event) => {
                    const inside = target.contains(event.target);
                    if (event.type === "pointerdown") guard.pressed = inside;
                    if (event.type === "click") guard.clicked = guard.pressed && inside;
                    if (!guard.pressed || !inside) { event.stopImmediatePropagation(); event.preventDefault(); }
                  };
                  types.forEach((type) => window.addEventListener(type, check, true));
                  guard.end = () => { types.forEach((type) => window.removeEventListener(type, check, true)); return guard.clicked || target.disabled === true; };
                  window.clickGuard = guard;
                  const b = target.getBoundingClientRect();
                  return [b.left + b.width / 2, b.top + b.height / 2];
                })()
                """) as? [Double])
        return (box[0], box[1])
    }

    /// The middle of the element `selector` finds, in the page's pixels.
    func middle(of selector: String) async throws -> (x: Double, y: Double) {
        let box = try #require(
            try await evaluate(
                "(() => { const b = document.querySelector('\(selector)').getBoundingClientRect(); "
                    + "return [b.left + b.width / 2, b.top + b.height / 2]; })()") as? [Double])
        return (box[0], box[1])
    }
}
