import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request to the studio's API and its answer, on a connection of its own. NIO rather than
/// URLSession: FoundationNetworking needs libcurl, which the release build with the Swift runtime
/// inside cannot link.
struct StudioRequest {
    var address: URL
    var body: String?

    init(_ address: String, body: String? = nil) throws {
        guard let url = URL(string: address), url.host != nil, url.port != nil else {
            throw ValidationError("not an address with a host and a port: \(address)")
        }
        self.address = url
        self.body = body
    }

    /// The answer's status code and body.
    func send() async throws -> (status: Int, body: Data) {
        let host = address.host!
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: address.port!) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(.head(head(host: host)))
            if let body { try await outbound.write(.body(.byteBuffer(ByteBuffer(string: body)))) }
            try await outbound.write(.end(nil))
            var status = 0
            var answer = Data()
            for try await part in inbound {
                switch part {
                case .head(let head): status = Int(head.status.code)
                case .body(let buffer): answer.append(contentsOf: buffer.readableBytesView)
                case .end: return (status, answer)
                }
            }
            throw ValidationError("the studio closed the connection before it answered \(address)")
        }
    }

    private func head(host: String) -> HTTPRequestHead {
        let target = address.path + (address.query.map { "?" + $0 } ?? "")
        var head = HTTPRequestHead(version: .http1_1, method: body == nil ? .GET : .POST, uri: target)
        head.headers.add(name: "Host", value: "\(host):\(address.port!)")
        head.headers.add(name: "Content-Length", value: "\(body?.utf8.count ?? 0)")
        if body != nil { head.headers.add(name: "Content-Type", value: "application/json") }
        head.headers.add(name: "Connection", value: "close")
        return head
    }
}
