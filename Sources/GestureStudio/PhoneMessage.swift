import Foundation
import GestureCore

/// What the phone's page sends over its WebSocket, as JSON text: first which API it reads,
/// `{"source": "generic-sensor"}`, then batches of readings, `{"readings": [[t, x, y, z, r1, r2, r3], …]}`
/// (see `PhoneSource`).
struct PhoneMessage: Decodable, Sendable {
    var source: PhoneSource?
    var readings: [[Double]]?
    /// The message as the page sent it, for the commands reading the phone through the studio.
    private(set) var text = ""

    private enum CodingKeys: String, CodingKey {
        case source, readings
    }

    /// The most readings one message may carry: a second at 500 Hz.
    static let largestBatch = 500
    /// The longest message accepted, in bytes; a longer one closes the connection.
    static let largestMessage = 1 << 16

    /// The message in `text`, checked: one field, and readings of seven finite numbers with times
    /// that never go back.
    init(parsing text: String) throws(PhoneMessageError) {
        do {
            self = try JSONDecoder().decode(PhoneMessage.self, from: Data(text.utf8))
        } catch {
            throw PhoneMessageError("not a message of the phone's page (\(Self.summary(of: error)))")
        }
        self.text = text
        guard (source == nil) != (readings == nil) else {
            throw PhoneMessageError("expected either \"source\" or \"readings\"")
        }
        guard let readings else { return }
        guard readings.count <= Self.largestBatch else {
            throw PhoneMessageError("\(readings.count) readings in one message, more than \(Self.largestBatch)")
        }
        for (index, reading) in readings.enumerated() {
            guard reading.count == 7, reading.allSatisfy(\.isFinite) else {
                throw PhoneMessageError("reading \(index + 1) is not seven finite numbers")
            }
            guard index == 0 || reading[0] >= readings[index - 1][0] else {
                throw PhoneMessageError("reading \(index + 1) is older than the one before it")
            }
        }
    }

    private static func summary(of error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted: return "not JSON"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return "\(path.isEmpty ? "the message" : path.joined(separator: "."))" + ": \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// Why a message from the phone's page was refused.
struct PhoneMessageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
