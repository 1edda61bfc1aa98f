import GestureSensors
import HummingbirdWebSocket

/// One connection of a phone's page, in the lowest free slot of the pairing: its messages in,
/// checked, to that slot's link; prompts out. A message that is not one the page sends, or larger
/// than `PhoneMessage.largestMessage`, closes the connection, and nothing else.
struct PhoneSession {
    let phones: PhonePairing

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        guard let (link, id, toPage) = phones.connect() else {
            return try await outbound.close(.policyViolation, reason: phones.refusal)
        }
        var reason = "the connection closed"
        defer { link.disconnect(id, reason: reason) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in toPage { try await outbound.write(.text(text)) }
                // The link has finished with the page, so has the connection; unless the reader
                // has ended it already, cancelling this.
                guard !Task.isCancelled else { return }
                try await outbound.close(.normalClosure, reason: "the studio is done with this page")
            }
            defer { group.cancelAll() }
            do {
                for try await message in inbound.messages(maxSize: PhoneMessage.largestMessage) {
                    guard case .text(let text) = message else {
                        reason = "refused a binary message"
                        return try await outbound.close(.unacceptableData, reason: reason)
                    }
                    do {
                        link.receive(try PhoneMessage(parsing: text), from: id, at: MonotonicClock().now())
                    } catch {
                        reason = "refused a message: \(error)"
                        return try await outbound.close(.unacceptableData, reason: String(reason.prefix(120)))
                    }
                }
            } catch is CancellationError {
                reason = "the server stopped"
            } catch {
                reason = "the connection failed: \(error)"
                throw error
            }
        }
    }
}
