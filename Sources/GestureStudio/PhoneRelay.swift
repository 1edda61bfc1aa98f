import Foundation
import GestureCore
import GestureSensors
import GestureStore
import HummingbirdWebSocket
import Logging
import NIOSSL
import Synchronization
import WSClient

#if canImport(Glibc)
import Glibc
#endif

/// The studio's side of a command that reads its paired phone (`gesture record --device phone`
/// while `gesture studio` runs): the page's messages of readings go to the command as the page
/// sent them, and the prompts the command shows come back to the page. The phone stays paired
/// with the studio when the command ends.
struct PhoneRelay {
    let phones: PhonePairing

    /// What a command sends: a prompt to show on the phone.
    private struct Prompt: Decodable {
        var prompt: String
    }

    /// The command's first message. The studio says nothing before it: what a server sends (or its
    /// close) while the client still takes the upgrade's response can be lost there, and the
    /// command would wait for ever.
    static let ready = "ready"

    func run(phone number: Int, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        var messages = inbound.messages(maxSize: PhoneMessage.largestMessage).makeAsyncIterator()
        guard case .text(Self.ready) = try await messages.next() else {
            return try await outbound.close(.unacceptableData, reason: "expected \(Self.ready)")
        }
        guard let link = phones.link(number), let (id, source, readings) = link.relay() else {
            return try await outbound.close(
                .policyViolation,
                reason: "phone \(number) is not streaming: open the studio's phone page on it and tap Start")
        }
        defer { link.endRelay(id) }
        try await outbound.write(.text(#"{"source":\#(jsonString(source.rawValue))}"#))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in readings { try await outbound.write(.text(text)) }
                guard !Task.isCancelled else { return }
                try await outbound.close(.goingAway, reason: "the phone's page disconnected")
            }
            defer { group.cancelAll() }
            while let message = try await messages.next() {
                guard case .text(let text) = message,
                    let prompt = try? JSONDecoder().decode(Prompt.self, from: Data(text.utf8))
                else {
                    return try await outbound.close(.unacceptableData, reason: "expected a prompt")
                }
                link.show(prompt: prompt.prompt)
            }
        }
    }
}

/// The phone paired with a running `gesture studio`, read by a command through the studio: a link
/// of the command's own, fed with the page's messages as the studio relays them, so that it reads
/// and times them as it would from the page itself; the prompts it shows reach the page.
public final class RelayedPhone: Sendable {
    public let link: PhoneLink
    public let source: PhoneSource
    private let connection: Task<Void, Never>

    /// Why the connection to the studio ended, once it has.
    private final class Ending: Sendable {
        let reason = Mutex<String?>(nil)
    }

    private init(link: PhoneLink, source: PhoneSource, connection: Task<Void, Never>) {
        self.link = link
        self.source = source
        self.connection = connection
    }

    /// Connects to phone `number` of the studio `announcement` names, and waits for its readings.
    public static func connect(
        to announcement: StudioAnnouncement, phone number: Int = 1
    ) async throws(StudioError) -> RelayedPhone {
        let link = PhoneLink(number: number, log: nil, notify: { _ in })
        let ending = Ending()
        let address = "\(announcement.secure ? "wss" : "ws")://127.0.0.1:\(announcement.port)/phone/relay"
        let connection = Task {
            let reason: String
            do {
                let close = try await WebSocketClient.connect(
                    url: "\(address)?token=\(announcement.token)&phone=\(number)",
                    // A name for TLS's server name: the client would send 127.0.0.1, and NIOSSL
                    // refuses an IP address there.
                    configuration: WebSocketClientConfiguration(sniHostname: "localhost"),
                    tlsConfiguration: announcement.secure ? StudioAnnouncement.loopbackTLS : nil,
                    logger: Logger(label: "gesture-relay") { _ in SwiftLogNoOpLogHandler() }
                ) { inbound, outbound, _ in
                    try await Self.relay(to: link, inbound: inbound, outbound: outbound)
                }
                reason = close?.reason ?? "the studio closed the connection"
            } catch {
                reason =
                    "cannot reach gesture studio at \(announcement.url) (\(error)); if no studio runs, "
                    + "delete the recordings' .studio/running.json, which one left"
            }
            ending.reason.withLock { $0 = reason }
        }
        while link.streamingThrough == nil {
            if let reason = ending.reason.withLock({ $0 }) { throw StudioError(reason) }
            if Task.isCancelled {
                connection.cancel()
                throw StudioError("stopped before the studio relayed the phone's readings")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return RelayedPhone(link: link, source: link.streamingThrough!, connection: connection)
    }

    /// Shows `farewell` on the phone's page, and lets go of the studio's relay: the page stays paired.
    public func close(saying farewell: String) async {
        link.close(saying: farewell)
        await connection.value
    }

    /// The studio's messages into `link`, as a page's would come; its prompts out to the studio.
    private static func relay(
        to link: PhoneLink, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        guard let (id, toPage) = link.connect() else { return }
        var reason = "the studio closed the connection"
        defer { link.disconnect(id, reason: reason) }
        try await outbound.write(.text(PhoneRelay.ready))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // The first message names the page, which the studio has done already.
                for await text in toPage.dropFirst() { try await outbound.write(.text(text)) }
                guard !Task.isCancelled else { return }
                try await outbound.close(.normalClosure, reason: "the command is done with the phone")
            }
            defer { group.cancelAll() }
            do {
                for try await message in inbound.messages(maxSize: PhoneMessage.largestMessage) {
                    guard case .text(let text) = message else { continue }
                    link.receive(try PhoneMessage(parsing: text), from: id, at: MonotonicClock().now())
                }
            } catch is CancellationError {
                reason = "the command stopped"
            }
        }
    }
}

/// A running `gesture studio`, announced in the recordings folder it serves (`.studio/running.json`)
/// so that a command reading the phone on that folder reads the studio's paired phone.
public struct StudioAnnouncement: Codable, Sendable {
    public var url: String
    var token: String
    var pid: Int32
    var port: Int
    /// Whether it serves HTTPS (`--lan`).
    var secure: Bool

    static func file(in folder: RecordingsFolder) -> String { folder.root.appending(".studio/running.json").string }

    /// The studio announced in `folder`, if its process still runs.
    public static func find(in folder: RecordingsFolder) -> StudioAnnouncement? {
        guard let data = FileManager.default.contents(atPath: file(in: folder)),
            let announcement = try? JSONDecoder().decode(StudioAnnouncement.self, from: data),
            kill(announcement.pid, 0) == 0 || errno == EPERM
        else { return nil }
        return announcement
    }

    /// TLS to the studio on this machine's loopback, which the studio's process, alive, holds:
    /// the token authenticates the command, and nobody else can answer there. (BoringSSL refuses
    /// the studio's self-signed certificate as its own trust root, it being no CA.)
    static let loopbackTLS: TLSConfiguration = {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        return configuration
    }()
}

extension RunningStudio {
    /// Announces the studio in `folder` until `withdraw` is called on what this returns.
    public func announce(in folder: RecordingsFolder) throws(StudioError) -> Announced {
        let announcement = StudioAnnouncement(
            url: url, token: token.value, pid: getpid(), port: port, secure: url.hasPrefix("https:"))
        let path = StudioAnnouncement.file(in: folder)
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // The token in it opens the studio: the owner's alone, as the certificate's key.
            guard
                FileManager.default.createFile(
                    atPath: path, contents: try JSONEncoder().encode(announcement),
                    attributes: [.posixPermissions: 0o600])
            else { throw StudioError("cannot write it") }
        } catch {
            throw StudioError("cannot announce the studio in \(path): \(error)")
        }
        return Announced(path: path)
    }

    /// A studio announced in a recordings folder.
    public struct Announced: Sendable {
        let path: String

        public func withdraw() { try? FileManager.default.removeItem(atPath: path) }
    }
}
