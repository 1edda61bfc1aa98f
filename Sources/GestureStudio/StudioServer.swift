import Foundation
import GestureAnalysis
import GestureSensors
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The studio's web server: its pages, and the phones' WebSocket, all behind the access token.
/// Nothing a client sends names a file: the pages are compiled in, and the socket carries readings.
public struct StudioServer: Sendable {
    public let token: AccessToken
    public let phones: PhonePairing
    /// The address to listen on, and the port (0: any free one).
    public var host: String
    public var port: Int
    /// With a certificate, HTTPS on every address of the machine; without, HTTP on `host`.
    public var certificate: StudioCertificate?
    /// The browser views, for `gesture studio`; a command reading the phone serves its page alone.
    public var views: StudioViews?

    public init(
        token: AccessToken = .random(), phones: PhonePairing, host: String = "127.0.0.1", port: Int,
        certificate: StudioCertificate? = nil, views: StudioViews? = nil
    ) {
        self.token = token
        self.phones = phones
        self.host = host
        self.port = port
        self.certificate = certificate
        self.views = views
    }

    /// Starts serving and returns once the server listens.
    public func start() async throws(StudioError) -> RunningStudio {
        let (events, listening) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let application = Application(
            router: router(), server: try server(),
            configuration: .init(
                address: .hostname(certificate == nil ? host : "0.0.0.0", port: port), serverName: "GestureLab Studio"),
            onServerRunning: { listening.yield(.success($0.localAddress?.port ?? 0)) },
            logger: Logger(label: "gesture-studio") { _ in SwiftLogNoOpLogHandler() })
        let serving = Task {
            do {
                try await application.run()
            } catch {
                listening.yield(.failure(error))
            }
            listening.finish()
        }
        for await event in events {
            switch event {
            case .success(let port):
                return RunningStudio(url: url(port: port), port: port, token: token, phones: phones, serving: serving)
            case .failure(let error as IOError) where error.errnoCode == EADDRINUSE:
                throw StudioError(
                    "port \(port) is in use by another program; pass --port with another, or --port 0 for any free one")
            case .failure(let error): throw StudioError("cannot listen on \(host):\(port): \(error)")
            }
        }
        throw StudioError("the server stopped before it listened on \(host):\(port)")
    }

    private func url(port: Int) -> String { "\(certificate == nil ? "http" : "https")://\(host):\(port)" }

    private func server() throws(StudioError) -> HTTPServerBuilder {
        let sockets = router().buildResponder()
        let plain = HTTPServerBuilder { [token] responder in
            TokenCheckedUpgrades(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: sockets, configuration: Self.sockets),
                token: token)
        }
        guard let certificate else { return plain }
        do {
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: [
                    .certificate(try NIOSSLCertificate(bytes: Array(certificate.certificatePEM.utf8), format: .pem))
                ],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificate.keyPEM.utf8), format: .pem)))
            return try .tls(plain, tlsConfiguration: configuration)
        } catch {
            throw StudioError("cannot serve HTTPS with the certificate: \(error)")
        }
    }

    /// A page that vanished without closing is let go of when a ping goes unanswered for a
    /// period; at 5 s, a page on a loaded machine that answered late was closed as gone away.
    static let sockets = HTTP1WebSocketUpgradeChannel.Configuration(
        ws: WebSocketServerConfiguration(
            maxFrameSize: PhoneMessage.largestMessage, autoPing: .enabled(timePeriod: .seconds(15))))

    private func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: TokenCheck(token: token))
        router.get("/") { _, _ in Page.studio.response }
        router.get("/phone") { _, _ in Page.phone.response }
        router.ws("/phone/socket") { [phones] inbound, outbound, _ in
            try await PhoneSession(phones: phones).run(inbound: inbound, outbound: outbound)
        }
        router.ws("/phone/relay") { [phones] inbound, outbound, context in
            let number = context.request.uri.queryParameters["phone"].flatMap { Int($0) } ?? 1
            try await PhoneRelay(phones: phones).run(phone: number, inbound: inbound, outbound: outbound)
        }
        views?.addRoutes(to: router, phones: phones)
        return router
    }
}

/// A studio server that listens, until its task is cancelled.
public struct RunningStudio: Sendable {
    /// Where it is reached, without the token: `http://127.0.0.1:8080`, or with a certificate
    /// `https://` and the machine's address on its network.
    public let url: String
    public let port: Int
    let token: AccessToken
    let phones: PhonePairing
    let serving: Task<Void, Never>

    /// The address of a page, with the token.
    public func address(of page: String) -> String { "\(url)\(page)?token=\(token.value)" }

    /// Closes the phones' pages' connections, saying `farewell` on them, and stops serving. It waits
    /// up to a second for the pages to have been told, no more: a graceful shutdown would wait for
    /// the browsers to close their idle connections.
    public func stop(saying farewell: String) async {
        phones.close(saying: farewell)
        for _ in 0..<100 where phones.anyConnected { try? await Task.sleep(for: .milliseconds(10)) }
        serving.cancel()
    }
}

public struct StudioError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The pages, compiled into the module from Assets/.
enum Page {
    case studio, phone

    var response: Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private var html: String {
        switch self {
        case .studio: Self.studioPage
        case .phone: Self.phonePage
        }
    }

    /// Each page with its script inside: a script of its own would need the token in its address too.
    private static let studioPage = page(PackageResources.studio_html, script: PackageResources.studio_js, "studio.js")
        .replacingOccurrences(of: "/* palette */", with: paletteVariables)
    private static let phonePage = page(PackageResources.phone_html, script: PackageResources.phone_js, "phone.js")

    /// The axes' colours of every plot GestureLab draws, and the gestures' bands' opacity, as CSS variables.
    private static let paletteVariables =
        zip(["x", "y", "z"], Palette.axes).map { "--\($0): \($1);" }.joined(separator: " ")
        + " --band-opacity: \(Palette.bandOpacity);"

    private static func page(_ html: [UInt8], script: [UInt8], _ name: String) -> String {
        String(decoding: html, as: UTF8.self).replacingOccurrences(
            of: "<!-- \(name) -->", with: "<script>\n" + String(decoding: script, as: UTF8.self) + "</script>")
    }
}
