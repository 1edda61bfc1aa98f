import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Synchronization
import Testing

@testable import GestureStudio

/// The studio's phones, a slot each: pages take the lowest free slot, are told which phone they
/// are, stream to their own slot only, and leave without disturbing the others.
@Suite struct PhonePairingTests {
    /// The first message a page is sent on connecting.
    static func firstMessage(_ stream: AsyncStream<String>) async -> String? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }

    @Test func eachPageTakesTheLowestFreeSlotAndLeavesTheOthersAlone() async throws {
        let notes = Mutex<[String]>([])
        let phones = try PhonePairing(slots: 2) { line in notes.withLock { $0.append(line) } }
        let (first, firstID, toFirst) = try #require(phones.connect())
        let (second, secondID, toSecond) = try #require(phones.connect())
        #expect(phones.connect()?.id == nil, "a third page took a slot of two")
        #expect(phones.refusal == "2 phones are paired, the most the studio takes")
        #expect(first.number == 1 && second.number == 2)
        #expect(await Self.firstMessage(toFirst) == #"{"paired":"phone 1"}"#)
        #expect(await Self.firstMessage(toSecond) == #"{"paired":"phone 2"}"#)

        for (link, id) in [(first, firstID), (second, secondID)] {
            link.receive(try PhoneMemoryTests.readings(PhoneMemoryTests.source), from: id, at: 1)
        }
        second.receive(try PhoneMemoryTests.readings(PhoneMemoryTests.batch(from: 0, count: 10)), from: secondID, at: 1)
        #expect(first.receivedReadings == 0 && second.receivedReadings == 10)
        #expect(phones.paired.map(\.device) == ["phone:1", "phone:2"])
        #expect(phones.paired.map(\.state) == ["streaming", "streaming"])
        let streaming = await phones.streamingPhone()
        #expect(streaming?.link.number == 2, "phone 1 has sent no reading yet")

        // Phone 1 leaves: phone 2 streams on, and the next page is phone 1.
        first.disconnect(firstID, reason: "the page closed")
        #expect(second.state == .streaming(.deviceMotion))
        #expect(phones.paired.map(\.name) == ["phone 2"])
        let (again, _, toAgain) = try #require(phones.connect())
        #expect(again.number == 1)
        #expect(await Self.firstMessage(toAgain) == #"{"paired":"phone 1"}"#)
        #expect(
            notes.withLock { $0 }.prefix(5) == [
                "phone's page connected (phone 1)", "phone's page connected (phone 2)",
                "phone streaming through the device-motion API (phone 1)",
                "phone streaming through the device-motion API (phone 2)",
                "phone's page disconnected (phone 1): the page closed",
            ])
    }

    @Test func aCommandsOnePhoneIsNamedInNoNoteAndASecondPageIsRefused() throws {
        let notes = Mutex<[String]>([])
        let phones = try PhonePairing(slots: 1) { line in notes.withLock { $0.append(line) } }
        #expect(phones.connect()?.link === phones.first)
        #expect(phones.connect()?.id == nil)
        #expect(phones.refusal == "another phone's page is connected")
        #expect(notes.withLock { $0 } == ["phone's page connected"])
    }

    @Test func aGroupNamesEachPhoneOnceAndEachUserOnce() throws {
        let names = RecordedNames(folder: try TemporaryFolder().recordings)
        func members(_ json: String) throws(StudioError) -> [RecordingMember] {
            let request = try! JSONDecoder().decode(RecordingRequest.self, from: Data(json.utf8))
            return try request.members(names: names)
        }
        let group = try members(#"{"phones":[{"phone":2,"user":"ben"},{"phone":1,"user":"ann"}],"gesture":"shake"}"#)
        #expect(group.map(\.device) == ["phone:2", "phone:1"] && group.map(\.plan.user.rawValue) == ["ben", "ann"])
        #expect(group.allSatisfy { !$0.waits && $0.plan.gesture.rawValue == "shake" })
        #expect(try members(#"{"device":"phone","user":"ann","gesture":"shake"}"#).map(\.waits) == [true])
        #expect(try members(#"{"device":"sim","user":"ann","gesture":"shake"}"#).map(\.waits) == [false])
        // A board with the phone waits for the phone's page to stream.
        let board = try members(#"{"device":"sim","with":"phone","user":"ann","gesture":"shake"}"#)
        #expect(board.map(\.waits) == [true] && board.map(\.companion) == ["phone"])
        for (json, expected) in [
            (
                #"{"phones":[{"phone":1,"user":"ann"},{"phone":1,"user":"ben"}],"gesture":"shake"}"#,
                "phone 1 is named twice"
            ),
            (
                #"{"phones":[{"phone":1,"user":"ann"},{"phone":2,"user":"Ann"}],"gesture":"shake"}"#,
                "Ann is named for two phones: each phone records its own user"
            ),
            (#"{"phones":[],"gesture":"shake"}"#, "a group recording names at least one phone and its user"),
            (
                #"{"phones":[{"phone":1,"user":"ann"}],"user":"ann","gesture":"shake"}"#,
                "a group recording names a user for each phone, not a device or a user"
            ),
            (#"{"phones":[{"phone":1}],"gesture":"shake"}"#, "name the user who records"),
            (
                #"{"device":"phone","with":"phone","user":"ann","gesture":"shake"}"#,
                "with: phone is a phone already; a phone records with a board"
            ),
            (
                #"{"device":"sim","with":"sim","user":"ann","gesture":"shake"}"#,
                "with: the studio records a board with a phone"
            ),
            (
                #"{"phones":[{"phone":1,"user":"ann"}],"with":"phone","gesture":"shake"}"#,
                "with: a group records its phones alone; a phone records with a board"
            ),
        ] {
            #expect(throws: StudioError.self, "\(json)") { try members(json) }
            do {
                _ = try members(json)
            } catch {
                #expect(error.description == expected, "\(json)")
            }
        }
    }
}
