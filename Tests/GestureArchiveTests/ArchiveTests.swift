import Foundation
import GestureArchive
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

@Suite struct ArchiveTests {
    @Test func discardMovesRowsOutAndRestorePutsThemBack() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 3), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        let original = try readRows(outcome.file)
        let target = outcome.sessions[1].id

        let discarded = try archive.discard([target], reason: "wrong gesture")
        #expect(discarded.map(\.status) == [.discarded])
        #expect(discarded.map(\.reason) == ["wrong gesture"])
        let remaining = try readRows(outcome.file)
        let moved = try readRows(folder.recordings.discardedFile(for: outcome.file))
        #expect(remaining == original.filter { $0.session != target })
        #expect(moved == original.filter { $0.session == target })
        #expect(try archive.check().isConsistent)

        try archive.restore([target])
        #expect(Set(try readRows(outcome.file).map(\.session)) == Set(outcome.sessions.map(\.id)))
        #expect(try readRows(outcome.file).count == original.count)
        #expect(try readRows(folder.recordings.discardedFile(for: outcome.file)).isEmpty)
        #expect(try archive.catalog.sessions().allSatisfy { $0.status == .kept })
        #expect(try archive.catalog.history(of: target).map(\.action) == ["recorded", "kept", "discarded", "kept"])
        #expect(try archive.check().isConsistent)
    }

    @Test func rowsMoveByteForByteAndAFileWithoutAHeaderGetsNone() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 3), in: folder.recordings)
        var lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
        lines.removeFirst()
        lines[3] += "\r"
        try (lines.joined(separator: "\n") + "\n").write(toFile: outcome.file.string, atomically: true, encoding: .utf8)
        let before = try recordingLines(in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        try archive.discard([outcome.sessions[0].id], reason: "test")
        let discarded = try String(
            contentsOfFile: folder.recordings.discardedFile(for: outcome.file).string, encoding: .utf8)
        #expect(discarded.hasPrefix(RecordingCSV.header + "\n"))
        try archive.restore([outcome.sessions[0].id])
        #expect(try recordingLines(in: folder.recordings) == before)
        let live = try String(contentsOfFile: outcome.file.string, encoding: .utf8)
        #expect(!live.hasPrefix(RecordingCSV.header))
        #expect(live.contains(lines[3] + "\n"))
    }

    /// The file spans three of the blocks it is read in: rows move, and damaged lines are found
    /// and moved, by their numbers in the whole file.
    @Test func aFileOfSeveralBlocksMovesAndRepairsByLine() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 3, take: 100), in: folder.recordings)
        var lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
        #expect(lines.count * 370 > 3 * (4 << 20) / 2)
        let damagedLine = lines.count - 5
        lines[damagedLine - 1] = "not,a,row"
        try (lines.joined(separator: "\n") + "\n").write(toFile: outcome.file.string, atomically: true, encoding: .utf8)
        let before = try recordingLines(in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        #expect(
            try archive.check().discrepancies.first?.description
                == "alice-recordings.csv:\(damagedLine): expected 21 fields, found 3")
        #expect(try archive.repair().after.isConsistent)
        try archive.discard([outcome.sessions[1].id], reason: "test")
        try archive.restore([outcome.sessions[1].id])
        #expect(try archive.check().isConsistent)
        #expect(try recordingLines(in: folder.recordings) == before)
        let damaged = folder.recordings.root.appending("damaged/alice-recordings.csv")
        #expect(try String(contentsOfFile: damaged.string, encoding: .utf8) == "not,a,row\n")
    }

    /// A trim and its undo on a file of several blocks, streamed: the rows come back in time order,
    /// byte for byte. A move cut short, leaving rows in both files either way, is finished without
    /// a row twice.
    @Test func rowsMovedOverSeveralBlocksComeBackInTimeOrderOnceEach() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2, take: 100), in: folder.recordings)
        let live = outcome.file.string, discarded = folder.recordings.discardedFile(for: outcome.file).string
        let original = try String(contentsOfFile: live, encoding: .utf8)
        #expect(original.utf8.count > 4 << 20)
        let archive = try Archive(folder: folder.recordings)
        let id = outcome.sessions[1].id
        _ = try archive.trim(id, from: 20, to: 60)
        let trimmed = try String(contentsOfFile: live, encoding: .utf8)
        let trimmedOff = try String(contentsOfFile: discarded, encoding: .utf8)
        #expect(try readRows(outcome.file).filter { $0.session == id }.allSatisfy { (20...60).contains($0.timestamp) })

        // Cut short after adding the trimmed-off rows to discarded/: they are in the user's file too.
        try (trimmed + trimmedOff.dropFirst(RecordingCSV.header.count + 1)).write(
            toFile: live, atomically: true, encoding: .utf8)
        #expect(try archive.repair().after.isConsistent)
        #expect(try String(contentsOfFile: live, encoding: .utf8) == trimmed)
        #expect(try String(contentsOfFile: discarded, encoding: .utf8) == trimmedOff)

        _ = try archive.undo([id])
        #expect(try String(contentsOfFile: live, encoding: .utf8) == original)
        // Cut short after bringing them back: they are still in discarded/ too.
        try trimmedOff.write(toFile: discarded, atomically: true, encoding: .utf8)
        #expect(try archive.repair().after.isConsistent)
        #expect(try String(contentsOfFile: live, encoding: .utf8) == original)
        #expect(try String(contentsOfFile: discarded, encoding: .utf8) == RecordingCSV.header + "\n")
    }

    /// A session's labels come from its runs of rows in time order, learnt while streaming the file:
    /// a file holding them out of order gives the labels one in order gives.
    @Test func aRelabelOfRowsOutOfTimeOrderLabelsAsInOrder() async throws {
        var relabeled: [SessionRecord] = []
        for reversed in [false, true] {
            let folder = try TemporaryFolder()
            let outcome = try await recordFast(try plan(takes: 1), in: folder.recordings)
            if reversed {
                let lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
                try ([lines[0]] + lines.dropFirst().reversed()).joined(separator: "\n").appending("\n").write(
                    toFile: outcome.file.string, atomically: true, encoding: .utf8)
            }
            let archive = try Archive(folder: folder.recordings)
            relabeled.append(
                try archive.relabel(outcome.sessions[0].id, from: 0.5, to: 1, as: try ActivityLabel("wave")))
        }
        #expect(relabeled[0].labels?.count == 2)
        #expect(relabeled[1].labels == relabeled[0].labels)
        #expect(relabeled[1].gesture == relabeled[0].gesture)
    }

    @Test func discardingTwiceChangesNothing() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        try archive.discard([outcome.sessions[0].id], reason: "r")
        let before = try String(contentsOfFile: outcome.file.string, encoding: .utf8)
        try archive.discard([outcome.sessions[0].id], reason: "r")
        #expect(try String(contentsOfFile: outcome.file.string, encoding: .utf8) == before)
        #expect(try archive.check().isConsistent)
    }

    @Test func anUnknownSessionChangesNothing() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        let error = #expect(throws: StoreError.self) {
            try archive.discard([outcome.sessions[0].id, SessionID(rawValue: "no-such-session")], reason: "r")
        }
        #expect(error?.description == "the catalog has no session no-such-session")
        #expect(try archive.catalog.sessions().allSatisfy { $0.status == .kept })
        #expect(try readRows(outcome.file).count == 1400)
    }

    @Test func checkSaysWhereCatalogAndFilesDisagree() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await recordFast(try plan(takes: 2), in: folder.recordings)
        let archive = try Archive(folder: folder.recordings)
        var lines = try String(contentsOfFile: outcome.file.string, encoding: .utf8).split(separator: "\n")
        lines.remove(at: 5)
        lines[10] = "garbage,line"
        lines.append("stray-1,rest" + String(repeating: ",0", count: 19))
        try (lines.joined(separator: "\n") + "\n").write(toFile: outcome.file.string, atomically: true, encoding: .utf8)

        let report = try archive.check()
        let first = outcome.sessions[0].id
        #expect(
            report.discrepancies.map(\.description) == [
                "alice-recordings.csv:11: expected 21 fields, found 2",
                "session \(first): the catalog says 700 rows, alice-recordings.csv holds 698",
                "alice-recordings.csv holds 1 session the catalog does not know: stray-1",
            ])
    }
}
