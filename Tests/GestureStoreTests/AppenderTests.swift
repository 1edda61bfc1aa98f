import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

@Suite struct AppenderTests {
    private func rows(_ session: String, count: Int) throws -> [RecordingRow] {
        (0..<count).map { index in
            RecordingRow(
                session: SessionID(rawValue: session), activity: .rest, timestamp: Double(index) / 100,
                motion: DeviceMotion(values: (0..<12).map { Double($0) + 0.1 * Double(index) }),
                rawAcceleration: [0.1, -0.2, 1.0 / 3.0], rawRotationRate: [1e-7, 2, .pi])
        }
    }

    @Test func rowsReadBackExactlyAsTheyWereWritten() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("carol-recordings.csv")
        let written = try rows("s-1", count: 50)
        try RecordingAppender(path: path).append(written)
        #expect(try readRows(path) == written)
        let text = try String(contentsOfFile: path.string, encoding: .utf8)
        #expect(text.hasPrefix(RecordingCSV.header + "\n"))
    }

    @Test func reopeningAppendsWithoutASecondHeader() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("carol-recordings.csv")
        let first = try RecordingAppender(path: path)
        #expect(!first.hadRows)
        try first.append(try rows("s-1", count: 3))
        let second = try RecordingAppender(path: path)
        #expect(second.hadRows)
        try second.append(try rows("s-2", count: 2))
        let text = try String(contentsOfFile: path.string, encoding: .utf8)
        #expect(text.components(separatedBy: "sessionId,").count == 2)
        #expect(try readRows(path).map(\.session.rawValue) == ["s-1", "s-1", "s-1", "s-2", "s-2"])
    }

    @Test func aFileInAnotherFormatIsNotAppendedTo() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("u01-book.csv")
        let book = "x-1,0" + String(repeating: ",0.5", count: 12) + "\n"
        try book.write(toFile: path.string, atomically: true, encoding: .utf8)
        let error = #expect(throws: StoreError.self) { try RecordingAppender(path: path) }
        #expect(error?.description.hasPrefix("\(path):1: not a GestureLab recording header") == true)
        #expect(try String(contentsOfFile: path.string, encoding: .utf8) == book)
    }

    @Test func concurrentAppendersNeverInterleaveLinesNorTakeAnothersBatchForDamage() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("dave-recordings.csv")
        _ = try RecordingAppender(path: path)
        let batch = try rows("s-x", count: 40)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        try RecordingAppender(path: path).append(
                            batch.map { row in
                                var row = row
                                row.session = SessionID(rawValue: "writer-\(writer)")
                                return row
                            })
                    }
                }
            }
            try await group.waitForAll()
        }
        let read = try readRows(path)
        #expect(read.count == 4 * 50 * 40)
        #expect(Dictionary(grouping: read, by: \.session).mapValues(\.count).values.allSatisfy { $0 == 2000 })
    }

    @Test func aLockedUserCannotBeLockedAgain() throws {
        let folder = try TemporaryFolder()
        let user = try UserID("erin")
        var held: UserLock? = try UserLock(user: user, in: folder.recordings, for: "testing", wait: .never)
        #expect(throws: StoreError.self) {
            try UserLock(user: user, in: folder.recordings, for: "testing", wait: .never)
        }
        #expect(held != nil)
        held = nil
        _ = try UserLock(user: user, in: folder.recordings, for: "testing", wait: .never)
    }
}
