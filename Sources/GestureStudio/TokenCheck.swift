import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// What a request without the token is answered, with 401.
enum TokenRefusal {
    static let contentType = "text/plain; charset=utf-8"
    static let text = "GestureLab Studio: open the address with its token.\n"
}

/// Refuses every request that does not carry the access token, before it reaches a route.
struct TokenCheck<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken
    private static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard token.admits(request.uri.queryParameters["token"]) else {
            return Response(
                status: .unauthorized, headers: [.contentType: TokenRefusal.contentType],
                body: .init(byteBuffer: ByteBuffer(string: TokenRefusal.text)))
        }
        var response = try await next(request, context)
        // The token is in the page's address: it must not travel on to anywhere else.
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// The HTTP connection with the WebSocket upgrade, where an upgrade without the token is refused
/// with 401 before it is tried: Hummingbird answers every upgrade the router refuses with 400.
struct TokenCheckedUpgrades: ServerChildChannel {
    let base: HTTP1WebSocketUpgradeChannel
    let token: AccessToken

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [token] value in
            let pipeline = channel.pipeline.syncOperations
            let upgrader = try pipeline.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try pipeline.addHandler(UpgradeTokenCheck(token: token), position: .before(upgrader))
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Reads a connection's first request before the upgrade handler does: an upgrade without the
/// token is answered 401 and the connection closed; anything else passes, and the check leaves
/// the pipeline (a later upgrade on the connection is sent to a new one by Hummingbird).
private final class UpgradeTokenCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let token: AccessToken
    private var refused = false

    init(token: AccessToken) { self.token = token }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data), head.headers.contains(name: "upgrade"),
            !token.admits(URI(head.uri).queryParameters["token"])
        else {
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        refused = true
        let body = ByteBuffer(string: TokenRefusal.text)
        let headers = HTTPHeaders([
            ("Content-Type", TokenRefusal.contentType),
            ("Content-Length", "\(body.readableBytes)"), ("Connection", "close"),
        ])
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .unauthorized, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
