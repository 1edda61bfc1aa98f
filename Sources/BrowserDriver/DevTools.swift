import Foundation
import Logging
import Synchronization
import WSClient

/// A client of the DevTools protocol over one WebSocket: commands by id, answers matched to them,
/// events kept by method for the tests to wait on.
public final class DevTools: Sendable {
    private let outgoing: AsyncStream<String>.Continuation
    private let answers = Answers()
    private let nextID = Atomic<Int>(1)
    private let connection: Task<Void, Never>

    init(url: String) {
        let (stream, outgoing) = AsyncStream.makeStream(of: String.self)
        self.outgoing = outgoing
        let answers = answers
        connection = Task {
            var configuration = WebSocketClientConfiguration()
            configuration.maxFrameSize = 1 << 26
            var failure = "the connection to Chromium closed"
            do {
                _ = try await WebSocketClient.connect(
                    url: url, configuration: configuration,
                    logger: Logger(label: "devtools") { _ in SwiftLogNoOpLogHandler() }
                ) { inbound, outbound, _ in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for await text in stream { try await outbound.write(.text(text)) } }
                        for try await case .text(let text) in inbound.messages(maxSize: 1 << 26) {
                            let data = Data(text.utf8)
                            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                                let id = object["id"] as? Int
                            else { continue }
                            answers.take(id)?.resume(returning: data)
                        }
                        group.cancelAll()
                    }
                }
            } catch {
                failure = "the connection to Chromium failed: \(error)"
            }
            for continuation in answers.close(because: failure) {
                continuation.resume(throwing: DevToolsError(message: failure))
            }
        }
    }

    deinit {
        outgoing.finish()
        connection.cancel()
    }

    /// Runs `method` and returns its result.
    @discardableResult
    public func send(
        _ method: String, _ parameters: [String: Any] = [:], session: String? = nil
    ) async throws -> [String: Any] {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        var command: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let session { command["sessionId"] = session }
        let text = String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self)
        let data = try await withCheckedThrowingContinuation { continuation in
            if let failure = answers.wait(id, continuation) {
                continuation.resume(throwing: DevToolsError(message: failure))
            } else {
                outgoing.yield(text)
            }
        }
        let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        if let error = answer["error"] as? [String: Any] {
            throw DevToolsError(message: "\(method): \(error["message"] ?? error)")
        }
        return answer["result"] as? [String: Any] ?? [:]
    }
}

/// The commands sent and not answered yet, until the connection ends.
private final class Answers: Sendable {
    private struct State {
        var waiting: [Int: CheckedContinuation<Data, any Error>] = [:]
        var closed: String?
    }
    private let state = Mutex(State())

    /// Why the connection ended, if it did; else the continuation waits for the answer `id`.
    func wait(_ id: Int, _ continuation: CheckedContinuation<Data, any Error>) -> String? {
        state.withLock { state in
            if state.closed == nil { state.waiting[id] = continuation }
            return state.closed
        }
    }

    func take(_ id: Int) -> CheckedContinuation<Data, any Error>? {
        state.withLock { $0.waiting.removeValue(forKey: id) }
    }

    /// The connection ended: the continuations still waiting.
    func close(because reason: String) -> [CheckedContinuation<Data, any Error>] {
        state.withLock { state in
            defer { state = State(closed: reason) }
            return Array(state.waiting.values)
        }
    }
}

public struct DevToolsError: Error, CustomStringConvertible {
    var message: String
    public var description: String { message }
}
