import BrowserDriver
import Foundation
import GestureCore
import GestureTestSupport
import Testing
import WSClient

@testable import GestureStudio

/// What the studio keeps of a phone's readings: only what a sensor reading the phone has yet to take.
@Suite struct PhoneMemoryTests {
    static let source = #"{"source":"device-motion"}"#

    /// A batch of `count` readings from the phone's time `start` ms, 10 ms apart.
    static func batch(from start: Int, count: Int) -> String {
        let readings = (start..<start + count).map { "[\($0 * 10),0.1,-0.2,9.8,1.5,-2.5,3.5]" }
        return #"{"readings":["# + readings.joined(separator: ",") + "]}"
    }

    static func readings(_ text: String) throws -> PhoneMessage { try PhoneMessage(parsing: text) }

    @Test func readingsAreQueuedOnlyWhileASensorReadsThem() throws {
        let link = try PhoneLink()
        let (id, _) = try #require(link.connect())
        link.receive(try Self.readings(Self.source), from: id, at: 1)
        link.receive(try Self.readings(Self.batch(from: 0, count: 500)), from: id, at: 1)
        #expect(link.queuedReadings == 0)

        let sensor = PhoneSensor(link: link, source: .deviceMotion)
        _ = try sensor.start(rate: 100)
        _ = try sensor.read(now: 1)
        link.receive(try Self.readings(Self.batch(from: 500, count: 500)), from: id, at: 6)
        #expect(link.queuedReadings == 500)
        sensor.stop()
        #expect(link.queuedReadings == 0)
        link.receive(try Self.readings(Self.batch(from: 1000, count: 500)), from: id, at: 11)
        link.disconnect(id, reason: "the test ended")
        #expect(link.queuedReadings == 0)
        #expect(link.receivedReadings == 1500)
    }

    /// `gesture studio` with nobody reading the phone: 10 pages in turn each stream 100,000
    /// readings and close; the server's memory after the last is what it was after the first,
    /// give or take less than one page's readings would take.
    @Test func closedConnectionsLeaveNothingBehind() async throws {
        let folder = try TemporaryFolder()
        let studio = try RunningGesture(["studio", "--port", "0"], in: folder.path)
        let socket = try await studio.address().replacingOccurrences(of: "http:", with: "ws:")
            .replacingOccurrences(of: "/?token=", with: "/phone/socket?token=")
        let perPage = 100_000, perBatch = PhoneMessage.largestBatch
        let batches = stride(from: 0, to: perPage, by: perBatch).map { Self.batch(from: $0, count: perBatch) }
        var resident: [Int] = []
        for page in 1...10 {
            _ = try await WebSocketClient.connect(url: socket, logger: StudioServerTests.quiet) {
                inbound, outbound, _ in
                // Read while writing, as a browser does: the studio's pings are answered only
                // while the inbound stream is read, and unanswered ones close the connection.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await _ in inbound {} }
                    try await outbound.write(.text(Self.source))
                    for batch in batches { try await outbound.write(.text(batch)) }
                    try await outbound.close(.normalClosure, reason: nil)
                    try await group.waitForAll()
                }
            }
            _ = try await waitFor("the studio to let go of page \(page)") {
                studio.errors.components(separatedBy: "phone's page disconnected").count - 1 == page ? true : nil
            }
            resident.append(try studio.residentKiB())
        }
        let kept = perPage * MemoryLayout<RawSample>.stride / 1024
        #expect(resident[9] - resident[0] < kept, "RSS after each page, KiB: \(resident); one page's readings: \(kept)")
        #expect(!studio.errors.contains("refused"), "\(studio.errors)")
        studio.interrupt()
        #expect(try await studio.exitCode() == 0)
    }
}
