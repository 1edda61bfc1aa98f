import BrowserDriver
import Foundation
import GestureTestSupport
import Logging
import Testing
import WSClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `gesture studio`: the token guards every request and the phone's socket, and a bad message closes
/// only its own connection.
@Suite struct StudioServerTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func status(of address: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: address)!)
        return (response as! HTTPURLResponse).statusCode
    }

    /// Connects to the phone's socket at `address` and closes the connection at once: throws if the
    /// studio refuses it.
    static func connect(_ address: String) async throws {
        _ = try await WebSocketClient.connect(url: address, logger: quiet) { _, outbound, _ in
            try await outbound.close(.normalClosure, reason: nil)
        }
    }

    @Test func everyRequestWithoutTheTokenIsRefused() async throws {
        let folder = try TemporaryFolder()
        let studio = try RunningGesture(["studio", "--port", "0"], in: folder.path)
        let address = try await studio.address()
        let token = try #require(address.firstMatch(of: /token=([0-9a-f]{32})$/)?.1)
        let base = String(address.prefix { $0 != "?" }.dropLast())
        #expect(try await Self.status(of: address) == 200)
        #expect(try await Self.status(of: base + "/phone?token=\(token)") == 200)
        for refused in [
            base + "/", base + "/phone", base + "/phone?token=", base + "/phone?token=\(wrong(token))",
            base + "/nosuch", base + "/phone?token=\(token.uppercased())", base + "/?Token=\(token)",
        ] {
            #expect(try await Self.status(of: refused) == 401, "\(refused)")
        }
        for path in ["/phone/socket", "/live/socket"] {
            for query in ["", "?token=", "?token=\(wrong(token))"] {
                #expect(try Self.upgradeStatus(of: base + path + query, in: folder) == "401", "\(path)\(query)")
            }
        }
        let socket = base.replacingOccurrences(of: "http:", with: "ws:") + "/phone/socket"
        await #expect(throws: (any Error).self) { try await Self.connect(socket) }
        await #expect(throws: (any Error).self) {
            try await Self.connect(socket + "?token=\(wrong(token))")
        }
        #expect(!studio.errors.contains("connected"), "a refused socket reached the phone: \(studio.errors)")
        studio.interrupt()
        #expect(try await studio.exitCode() == 0)
    }

    /// The phone has no simulated time: refused at once, not after the phone came.
    @Test func recordingThePhoneFastIsRefusedBeforeServing() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["record", "--device", "phone", "--fast", "--user", "ann", "--gesture", "shake"], in: folder.path)
        #expect(result.status == 2)
        #expect(
            result.error == "gesture: --fast runs on simulated time, which only the simulated sensor and replays have\n"
        )
    }

    @Test func aPortInUseIsSaidInWords() async throws {
        let folder = try TemporaryFolder()
        let first = try RunningGesture(["studio", "--port", "0"], in: folder.path)
        let address = try await first.address()
        let port = try #require(address.firstMatch(of: /:(\d+)/).map { String($0.1) })
        // In a folder of its own: a second studio on the first's folder is refused before it listens.
        let elsewhere = try TemporaryFolder()
        let second = try runGesture(["studio", "--port", port], in: elsewhere.path)
        #expect(second.status == 2)
        #expect(
            second.error
                == "gesture: studio: port \(port) is in use by another program; pass --port with another, or --port 0 for any free one\n"
        )
        first.interrupt()
        #expect(try await first.exitCode() == 0)
    }

    /// Chromium is the client: it answers the studio's pings whatever the tests' own threads are
    /// busy with, where a client in the test process, starved by tests that block, was now and then
    /// closed as gone away.
    @Test func malformedAndOversizedMessagesCloseOnlyTheirConnection() async throws {
        let folder = try TemporaryFolder()
        let studio = try RunningGesture(["studio", "--port", "0"], in: folder.path)
        let address = try await studio.address()
        let socket = address.replacingOccurrences(of: "http:", with: "ws:").replacingOccurrences(
            of: "/?token=", with: "/phone/socket?token=")
        let page = try await Chromium(dyingWithTestsIn: folder.path).open(address, on: .laptop)
        var connections = 0
        /// The code the studio closes a connection with after `messages`, or that it answers the
        /// page's own close with, when `leaving`. The studio takes one page at a time: each connects
        /// once the one before was let go of, and sends once the studio has it.
        func closeCode(after messages: [String], leaving: Bool = false) async throws -> Int? {
            _ = try await waitFor("the studio to let go of connection \(connections)") {
                studio.errors.components(separatedBy: "phone's page disconnected").count - 1 == connections
                    ? true : nil
            }
            connections += 1
            _ = try await page.evaluate(
                """
                new Promise((opened, failed) => {
                  window.socket = new WebSocket(\(try Self.javaScript(socket)));
                  window.closeCode = new Promise(closed => { socket.onclose = event => closed(event.code) });
                  socket.onopen = opened;
                  socket.onerror = () => failed(new Error('the socket failed'));
                })
                """)
            _ = try await waitFor("the studio to connect page \(connections)") {
                studio.errors.components(separatedBy: "phone's page connected").count - 1 == connections ? true : nil
            }
            return try await page.evaluate(
                """
                (async () => {
                  for (const message of \(try Self.javaScript(messages))) socket.send(message);
                  \(leaving ? "socket.close(1000);" : "")
                  return await closeCode;
                })()
                """) as? Int
        }
        let (normalClosure, unacceptableData, abnormalClosure, messageTooLarge) = (1000, 1003, 1006, 1009)
        let source = #"{"source":"device-motion"}"#
        let bad = [
            "not JSON", #"{"readings":[[1,2,3]]}"#, #"{"source":"telepathy"}"#, "{}",
            source + "x", #"{"source":"device-motion","readings":[]}"#,
        ]
        for message in bad {
            let closed = try await closeCode(after: [message])
            #expect(
                closed == unacceptableData,
                "\(message): closed with \(closed.map(String.init) ?? "nothing"); \(studio.errors)")
        }
        #expect(
            try await closeCode(after: [source, #"{"readings":[[2,0,0,9.8,0,0,0],[1,0,0,9.8,0,0,0]]}"#])
                == unacceptableData)
        let huge = #"{"readings":["# + Array(repeating: "[1,0,0,9.8,0,0,0]", count: 5000).joined(separator: ",") + "]}"
        // The studio closes at the frame's header, while the rest is still arriving: the browser sees
        // its close frame or, when the reset overtakes it, an abnormal closure.
        let tooLarge = try await closeCode(after: [source, huge])
        #expect([messageTooLarge, abnormalClosure].contains(tooLarge), "\(tooLarge.map(String.init) ?? "nothing")")
        #expect(try await Self.status(of: address) == 200)
        let good = try await closeCode(after: [source, #"{"readings":[[1,0,0,9.8,0,0,0]]}"#], leaving: true)
        #expect(good == normalClosure)
        let notes = studio.errors
        #expect(notes.contains("phone streaming through the device-motion API"), "\(notes)")
        #expect(notes.contains("refused a message: not a message of the phone's page (not JSON)"), "\(notes)")
        studio.interrupt()
        #expect(try await studio.exitCode() == 0)
    }

    /// `value` as a JavaScript literal.
    static func javaScript(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// Runs curl on `address`, trusting any certificate, and returns the HTTP status.
    static func curl(_ address: String, in folder: TemporaryFolder, options: [String] = []) throws -> String {
        try runGesture(
            options + ["-k", "-s", "-o", "/dev/null", "-w", "%{http_code}", address], in: folder.path,
            executable: "/usr/bin/curl"
        ).succeeded().output
    }

    /// The status curl gets asking to upgrade `address` to a WebSocket, over HTTP/1.1.
    static func upgradeStatus(of address: String, in folder: TemporaryFolder) throws -> String {
        let upgrade = [
            "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        ]
        return try curl(address, in: folder, options: ["--http1.1"] + upgrade.flatMap { ["-H", $0] })
    }

    @Test func onTheLANItServesHTTPSWithACertificateItMakesOnceAndKeeps() async throws {
        let folder = try TemporaryFolder()
        let kept = folder.recordings.root.appending(".studio")
        var certificates: [String] = []
        for _ in 0..<2 {
            let studio = try RunningGesture(["studio", "--lan", "--port", "0"], in: folder.path)
            let address = try await studio.address()
            let host = try #require(address.firstMatch(of: /^https:\/\/([0-9.]+):/)?.1)
            #expect(try Self.curl(address, in: folder) == "200")
            #expect(try Self.curl(String(address.prefix { $0 != "?" }), in: folder) == "401")
            #expect(
                try Self.upgradeStatus(of: String(address.prefix { $0 != "?" }) + "phone/socket", in: folder) == "401")
            let names = try runGesture(
                ["x509", "-in", kept.appending("certificate.pem").string, "-noout", "-ext", "subjectAltName"],
                in: folder.path, executable: "/usr/bin/openssl"
            ).succeeded().output
            #expect(names.contains("IP Address:\(host)") && names.contains("IP Address:127.0.0.1"), "\(names)")
            let key = try FileManager.default.attributesOfItem(atPath: kept.appending("key.pem").string)
            #expect((key[.posixPermissions] as? Int) == 0o600)
            certificates.append(try String(contentsOfFile: kept.appending("certificate.pem").string, encoding: .utf8))

            let chromium = try await Chromium(dyingWithTestsIn: folder.path, arguments: ["--ignore-certificate-errors"])
            let page = try await chromium.open(address.replacingOccurrences(of: "/?token=", with: "/phone?token="))
            try await page.waitUntil(
                "the page connected over wss", "studio.connected && location.protocol === 'https:'")
            // A command on the folder reaches the studio over wss, trusting the studio's certificate,
            // and hears that the page has not started streaming.
            let monitor = try runGesture(["monitor", "--device", "phone"], in: folder.path)
            #expect(
                monitor.status == 1
                    && monitor.error.hasSuffix(
                        "phone: phone 1 is not streaming: open the studio's phone page on it and tap Start\n"),
                "\(monitor.error)")
            studio.interrupt()
            #expect(try await studio.exitCode() == 0)
        }
        #expect(certificates[0] == certificates[1])
    }
}

/// A token one digit away from `token`.
func wrong(_ token: some StringProtocol) -> String {
    token.dropLast() + (token.last == "0" ? "1" : "0")
}
