import Foundation
import GRDB
import GestureArchive
import GestureCore
import GestureStore
import GestureTestSupport
import Synchronization
import Testing

import struct SystemPackage.FilePath

/// Makes every later write of the catalog's sessions fail, as a read-only or full catalog would.
private func failCatalogWrites(_ folder: RecordingsFolder, _ failing: Bool) throws {
    let database = try DatabaseQueue(path: folder.catalogPath.string)
    try database.write { db in
        if failing {
            try db.execute(
                sql: """
                    CREATE TRIGGER failUpdate BEFORE UPDATE ON sessions BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
                    CREATE TRIGGER failInsert BEFORE INSERT ON sessions WHEN NEW.take > 1
                      BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
                    """)
        } else {
            try db.execute(sql: "DROP TRIGGER failUpdate; DROP TRIGGER failInsert")
        }
    }
}

@Suite struct RepairTests {
    @Test func repairMovesDamagedLinesAsideCataloguesStrangersAndRecounts() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        var lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
        lines.remove(at: 5)
        lines[10] = "garbage,line"
        lines += (0..<3).map { "stray-1,shake,\(Double($0) / 50)" + String(repeating: ",0", count: 18) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: outcome.file.string, atomically: true, encoding: .utf8)
        let before = try recordingLines(in: folder.recordings)

        let archive = try Archive(folder: folder.recordings)
        let (repaired, after) = try archive.repair()
        #expect(repaired.count == 3)
        #expect(after.isConsistent)
        #expect(try recordingLines(in: folder.recordings) == before)
        let damaged = folder.recordings.root.appending("damaged/alice-recordings.csv")
        #expect(try String(contentsOfFile: damaged.string, encoding: .utf8) == "garbage,line\n")
        let stray = try #require(try archive.catalog.sessions().first { $0.id.rawValue == "stray-1" })
        #expect(stray.status == .incomplete)
        #expect(stray.gesture == .shake)
        #expect(stray.sampleCount == 3)
        #expect(abs(stray.achievedRate - 50) < 1e-9)
        #expect(try archive.catalog.sessions().map(\.sampleCount) == [698, 700, 3])
    }

    @Test func aHalfWrittenLastLineMovesAsideAndTheFileEndsWithANewlineAgain() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 1), in: folder.recordings)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outcome.file.string))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(outcome.sessions[0].id),rest,0.5".utf8))
        try handle.close()
        let archive = try Archive(folder: folder.recordings)
        #expect(
            try archive.check().discrepancies.map(\.description) == [
                "alice-recordings.csv:702: expected 21 fields, found 3"
            ])
        let (_, after) = try archive.repair()
        #expect(after.isConsistent)
        #expect(try String(contentsOfFile: outcome.file.string, encoding: .utf8).hasSuffix("\n"))
        #expect(try readRows(outcome.file).count == 700)
    }

    @Test func aFileOfOneHugeLineIsOneShortFindingAndMovesAsideWhole() async throws {
        let folder = try TemporaryFolder()
        try await recordFast(try plan(takes: 1), in: folder.recordings)
        let huge = folder.recordings.root.appending("junk-recordings.csv")
        try String(repeating: "a", count: 5_000_000).write(toFile: huge.string, atomically: true, encoding: .utf8)
        let archive = try Archive(folder: folder.recordings)
        let found = try archive.check().discrepancies
        #expect(found.count == 1)
        #expect(
            found.first?.description
                == "junk-recordings.csv:1: the line is 5000000 bytes long: not a recording row")
        #expect(try archive.repair().after.isConsistent)
        let moved = folder.recordings.root.appending("damaged/junk-recordings.csv")
        #expect(try String(contentsOfFile: moved.string, encoding: .utf8).count == 5_000_001)
    }

    @Test func aLineTooLongToMoveIsNamedAndLeftForTheUserWithEveryRow() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        var lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
        lines.insert(Substring(String(repeating: "x", count: 5_000_000)), at: 300)
        try (lines.joined(separator: "\n") + "\n").write(toFile: outcome.file.string, atomically: true, encoding: .utf8)
        let before = try String(contentsOfFile: outcome.file.string, encoding: .utf8)
        var archive = try Archive(folder: folder.recordings)
        archive.longestLineToMove = 2 << 20
        let finding =
            "alice-recordings.csv:301: the line is 5000000 bytes long, not a recording row and too long for repair to move; take it out of the file by hand"
        #expect(try archive.check().discrepancies.map(\.description) == [finding])
        let (repaired, after) = try archive.repair()
        #expect(repaired.isEmpty)
        #expect(after.discrepancies.map(\.description) == [finding])
        #expect(try String(contentsOfFile: outcome.file.string, encoding: .utf8) == before)
    }

    @Test func twoDiscardsOfTheSameSessionAtOnceLeaveItsRowsInExactlyOneFile() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 3), in: folder.recordings)
        let before = try recordingLines(in: folder.recordings)
        let target = outcome.sessions[1].id
        for round in 0..<10 {
            let recordings = folder.recordings
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        let archive = try Archive(folder: recordings)
                        if round.isMultiple(of: 2) {
                            try archive.discard([target], reason: "race")
                        } else {
                            try archive.restore([target])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try recordingLines(in: folder.recordings) == before)
            #expect(try Archive(folder: folder.recordings).check().isConsistent)
        }
    }

    @Test func aDiscardTheCatalogRefusesMovesNothingAndRepeatingItAfterwardsWorks() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let original = try String(contentsOfFile: outcome.file.string, encoding: .utf8)
        try failCatalogWrites(folder.recordings, true)
        let archive = try Archive(folder: folder.recordings)
        let error = #expect(throws: StoreError.self) { try archive.discard([outcome.sessions[0].id], reason: "r") }
        #expect(error?.description.contains("injected failure") == true)
        #expect(try String(contentsOfFile: outcome.file.string, encoding: .utf8) == original)
        try failCatalogWrites(folder.recordings, false)
        try archive.discard([outcome.sessions[0].id], reason: "r")
        try archive.discard([outcome.sessions[0].id], reason: "r")
        #expect(try readRows(folder.recordings.discardedFile(for: outcome.file)).count == 700)
        #expect(try readRows(outcome.file).count == 700)
        #expect(try archive.check().isConsistent)
    }

    @Test func anIncompleteTakeDiscardedAndRestoredIsIncompleteAgain() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 1), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        // As the recorder saves a take it was stopped in.
        var take = try #require(outcome.sessions.first)
        take.status = .incomplete
        take.reason = "interrupted by SIGINT"
        try archive.catalog.finish(take)
        try archive.discard([take.id], reason: "r")
        let restored = try archive.restore([take.id])
        #expect(restored.map(\.status) == [.incomplete])
        #expect(restored.map(\.reason) == [take.reason])
        #expect(try archive.check().isConsistent)
    }

    @Test func aTakeLeftAsBeingRecordedIsClosedWithTheRowsItsFileHolds() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        // What a recorder killed mid-take leaves: the take still "recording", its count not saved.
        let database = try DatabaseQueue(path: folder.recordings.catalogPath.string)
        try await database.write { db in
            try db.execute(
                sql: "UPDATE sessions SET status = 'incomplete', reason = 'recording', sampleCount = 0 WHERE id = ?",
                arguments: [outcome.sessions[1].id.rawValue])
        }
        let archive = try Archive(folder: folder.recordings)
        #expect(try archive.check().discrepancies == [.unfinished(outcome.sessions[1].id, rows: 700)])
        let (repaired, after) = try archive.repair()
        #expect(repaired == [.unfinished(outcome.sessions[1].id, rows: 700)])
        #expect(after.isConsistent)
        let record = try #require(try archive.catalog.sessions().last)
        #expect(record.sampleCount == 700)
        #expect(record.status == .incomplete)
        #expect(abs(record.achievedRate - outcome.sessions[1].achievedRate) < 1e-9)
    }

    @Test func rowsInBothFilesAfterAStoppedMoveAreRepairedToTheOneTheStatusSays() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        try archive.discard([outcome.sessions[0].id], reason: "r")
        // A discard stopped after it wrote discarded/ and before it rewrote the user's file.
        let discarded = try String(
            contentsOfFile: folder.recordings.discardedFile(for: outcome.file).string, encoding: .utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outcome.file.string))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(discarded.split(separator: "\n").dropFirst().map { $0 + "\n" }.joined().utf8))
        try handle.close()
        #expect(
            try archive.check().discrepancies == [
                .misplaced(outcome.sessions[0].id, status: .discarded, rows: 700, file: "alice-recordings.csv")
            ])
        #expect(try archive.repair().after.isConsistent)
        #expect(try readRows(outcome.file).count == 700)
    }

    @Test func aChangeWaitsForTheUsersLockThenForTheCatalogSayingWhatFor() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let said = Mutex<[String]>([])
        let archive = try Archive(
            folder: folder.recordings, waiting: .saying { line in said.withLock { $0.append(line) } })
        var held: UserLock? = try UserLock(user: UserID("alice"), in: folder.recordings, for: "recording", wait: .never)
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: folder.recordings.catalogPath.string, configuration: configuration)
        let target = outcome.sessions[0].id
        let discard = Task.detached { try archive.discard([target], reason: "r") }
        while said.withLock({ $0.isEmpty }) { usleep(1000) }
        // The catalog is taken before the user is let go, so the discard must wait for it next.
        try blocker.inDatabase { try $0.execute(sql: "BEGIN EXCLUSIVE") }
        held = nil
        while said.withLock({ $0.count < 2 }) { usleep(1000) }
        try blocker.inDatabase { try $0.execute(sql: "COMMIT") }
        #expect(try await discard.value.map(\.status) == [.discarded])
        let lines = said.withLock { $0 }
        #expect(
            lines == [
                "waiting for another gesture process (recording, pid \(getpid())) to finish with alice's recordings…",
                "waiting for another gesture process to finish writing the catalog \(folder.recordings.catalogPath)…",
            ])
        #expect(held == nil)
    }

    @Test func checkLeavesAUserBeingRecordedAlone() async throws {
        let folder = try TemporaryFolder()
        try await recordFast(try plan(takes: 1), in: folder.recordings)
        let held = try UserLock(user: UserID("alice"), in: folder.recordings, for: "recording", wait: .never)
        let report = try Archive(folder: folder.recordings).check()
        #expect(report.sessionsChecked == 0)
        #expect(report.busy.count == 1)
        #expect(report.busy.first?.contains("(recording, pid \(getpid()))") == true)
        withExtendedLifetime(held) {}
    }

    @Test func aRecordingWhoseCatalogFailsKeepsRecordingNeverWritesARowTwiceAndSaysWhatTheCatalogLacks()
        async throws
    {
        let folder = try TemporaryFolder()
        try folder.recordings.prepare()
        _ = try Catalog(path: folder.recordings.catalogPath.string)
        try failCatalogWrites(folder.recordings, true)
        let outcome = try await recordFast(try plan(takes: 3), in: folder.recordings)
        #expect(outcome.interruption == nil)
        #expect(outcome.sessions.map(\.status) == [.kept, .kept, .kept])
        #expect(outcome.unsaved.map(\.take) == [1, 2, 3])
        #expect(outcome.catalogError?.description.contains("injected failure") == true)
        let rows = try readRows(outcome.file)
        #expect(rows.count == 2100)
        #expect(Set(rows.map { "\($0.session) \($0.timestamp)" }).count == rows.count)

        try failCatalogWrites(folder.recordings, false)
        let (_, after) = try Archive(folder: folder.recordings).repair()
        #expect(after.isConsistent)
        #expect(
            try Catalog(path: folder.recordings.catalogPath.string).sessions().map(\.sampleCount) == [700, 700, 700])
    }

    @Test func recordingsStartedInTheSameMillisecondGetDifferentSessionIDs() async throws {
        let folder = try TemporaryFolder()
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try await recordFast(try plan("alice", takes: 1), in: folder.recordings, date: date)
        let second = try await recordFast(try plan("bob", takes: 1), in: folder.recordings, date: date)
        #expect(first.sessions[0].id.rawValue == "2027-01-15T08:00:00.000Z-1")
        #expect(second.sessions[0].id.rawValue == "2027-01-15T08:00:00.001Z-1")
        #expect(try Archive(folder: folder.recordings).check().isConsistent)
    }
}
