import Foundation
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// Records `takes` takes of chop for ann at 25 Hz on the simulated sensor, in simulated time.
private func recordChops(in folder: TemporaryFolder, takes: Int = 2) throws -> [SessionRecord] {
    try runGesture(
        [
            "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "\(takes)", "--rate", "25",
            "--fast", "--quiet",
            "--keep",
        ], in: folder.path
    ).succeeded()
    return try Catalog(path: folder.recordings.catalogPath.string).sessions()
}

/// Writes a session's rows into `bob-book.csv` in the book's format, its chop labeled from
/// `from` to `to` seconds as a prompt would have, and moves the original file aside.
private func writeBookFile(in folder: TemporaryFolder, chopFrom from: Double, to: Double) throws -> SessionID {
    let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv"))
    let session = rows[0].session
    let lines = rows.filter { $0.session == session }.map { row in
        let code = (from...to).contains(row.timestamp) ? 3 : 0
        return (["\(session)", "\(code)"] + row.motion.values.map { "\($0)" }).joined(separator: ",")
    }
    try (lines.joined(separator: "\n") + "\n").write(
        toFile: folder.recordings.root.appending("bob-book.csv").string, atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: folder.recordings.root.string + "/ann-recordings.csv")
    try FileManager.default.removeItem(atPath: folder.recordings.catalogPath.string)
    try runGesture(["check", "--repair"], in: folder.path).succeeded()
    return session
}

/// Each line of the folder's CSVs without its label: what a change of labels must keep, once each.
private func unlabeledLines(in folder: RecordingsFolder) throws -> [String: Int] {
    var counts: [String: Int] = [:]
    for (line, count) in try recordingLines(in: folder) {
        var fields = line.split(separator: ",", omittingEmptySubsequences: false)
        fields.remove(at: 1)
        counts[fields.joined(separator: ","), default: 0] += count
    }
    return counts
}

private func labels(of id: SessionID, in folder: TemporaryFolder, file: String) throws -> [ActivityLabel] {
    try readRows(folder.recordings.root.appending(file)).filter { $0.session == id }.map(\.activity)
}

@Suite struct LabelCommandTests {
    /// The book's format keeps its activity codes and its fourteen columns; the chop's codes move
    /// from where the "prompt" put them to where the hand moved, and undo puts them back.
    @Test func alignMovesABookFormatFilesLabelsToTheMotionAndUndoMovesThemBack() throws {
        let folder = try TemporaryFolder()
        _ = try recordChops(in: folder, takes: 1)
        let id = try writeBookFile(in: folder, chopFrom: 4.5, to: 8.5)
        let before = try labels(of: id, in: folder, file: "bob-book.csv")
        let aligned = try runGesture(["align"], in: folder.path).succeeded()
        #expect(aligned.output.contains("1 session aligned"))
        let after = try labels(of: id, in: folder, file: "bob-book.csv")
        let first = try #require(after.firstIndex(of: .chop)), last = try #require(after.lastIndex(of: .chop))
        #expect(first > 4 * 25 + 12, "the simulated hand reacts at least 0.12 s after go")
        #expect(last > 8 * 25 + 12)
        #expect(after[first...last].allSatisfy { $0 == .chop })
        let text = try String(contentsOfFile: folder.path.string + "/recordings/bob-book.csv", encoding: .utf8)
        #expect(text.split(separator: "\n").allSatisfy { $0.split(separator: ",").count == 14 })
        try runGesture(["check"], in: folder.path).succeeded()
        try runGesture(["undo", id.rawValue], in: folder.path).succeeded()
        #expect(try labels(of: id, in: folder, file: "bob-book.csv") == before)
    }

    /// Without IDs, `align --prompted` labels every recorded (aligned) take over its prompt, and
    /// `align` then aligns them again.
    @Test func alignPromptedLabelsEveryAlignedTakeOverItsPrompt() throws {
        let folder = try TemporaryFolder()
        let takes = try recordChops(in: folder)
        let aligned = try labels(of: takes[0].id, in: folder, file: "ann-recordings.csv")
        let prompted = try runGesture(["align", "--prompted"], in: folder.path).succeeded()
        #expect(prompted.output.contains("2 sessions labeled as prompted"), "\(prompted.output)")
        for take in takes {
            let (from, to) = (try #require(take.promptFrom), try #require(take.promptTo))
            let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv")).filter {
                $0.session == take.id
            }
            #expect(rows.allSatisfy { $0.activity == ((from...to).contains($0.timestamp) ? .chop : .rest) })
        }
        #expect(try runGesture(["align", "--prompted"], in: folder.path).succeeded().output.contains("0 sessions"))
        try runGesture(["check"], in: folder.path).succeeded()
        #expect(try runGesture(["align"], in: folder.path).succeeded().output.contains("2 sessions aligned"))
        #expect(try labels(of: takes[0].id, in: folder, file: "ann-recordings.csv") == aligned)
    }

    @Test func aTakeWithNoMotionInsideItsPromptIsShownByStatsAndClean() throws {
        let folder = try TemporaryFolder()
        _ = try recordChops(in: folder, takes: 1)
        let id = try writeBookFile(in: folder, chopFrom: 0.5, to: 2)
        try runGesture(["align", id.rawValue], in: folder.path).succeeded()
        let stats = try runGesture(["stats"], in: folder.path).succeeded()
        #expect(stats.output.contains("1 session with no motion inside the prompt"))
        #expect(stats.output.contains(id.rawValue))
        let clean = try runGesture(["clean"], in: folder.path).succeeded()
        #expect(clean.output.contains("no-motion: nothing moved inside the prompt"))
    }

    @Test func relabelChangesAStretchAndUndoTakesItBack() throws {
        let folder = try TemporaryFolder()
        let id = try recordChops(in: folder)[0].id
        let before = try labels(of: id, in: folder, file: "ann-recordings.csv")
        let relabel = try runGesture(
            ["relabel", id.rawValue, "--from", "1", "--to", "2", "--as", "wave"], in: folder.path
        ).succeeded()
        #expect(relabel.output.contains("wave 1.00–2.00 s"))
        let after = try labels(of: id, in: folder, file: "ann-recordings.csv")
        let wave = try ActivityLabel("wave")
        #expect(after[25...50].allSatisfy { $0 == wave })
        #expect(after[..<25] == before[..<25])
        #expect(after[51...] == before[51...])
        try runGesture(["check"], in: folder.path).succeeded()
        try runGesture(["undo", id.rawValue], in: folder.path).succeeded()
        #expect(try labels(of: id, in: folder, file: "ann-recordings.csv") == before)
        let again = try runGesture(["undo", id.rawValue], in: folder.path)
        #expect(again.status == 1)
        #expect(again.error == "gesture: session \(id) has no change of labels to undo\n")
    }

    /// A rewrite that fails (here past the file size limit) leaves the file as it was but not the
    /// catalog: the message says so, and `check --repair` finishes the change.
    @Test func aFailedRewriteSaysTheCatalogChangedAndRepairFinishesIt() throws {
        let folder = try TemporaryFolder()
        let id = try recordChops(in: folder, takes: 4)[0].id
        let before = try labels(of: id, in: folder, file: "ann-recordings.csv")
        let result = try runGesture(
            ["relabel", id.rawValue, "--from", "1", "--to", "2", "--as", "wave"], in: folder.path,
            shell: "ulimit -f 200; trap '' XFSZ")
        #expect(result.status == 1)
        #expect(
            result.error
                == "gesture: could not rewrite recordings/ann-recordings.csv (File too large); it was left as it was, "
                + "but the catalog has the sessions relabeled: `gesture check --repair` finishes it\n")
        #expect(try labels(of: id, in: folder, file: "ann-recordings.csv") == before)
        #expect(try runGesture(["check"], in: folder.path).status == 1)
        try runGesture(["check", "--repair"], in: folder.path).succeeded()
        let after = try labels(of: id, in: folder, file: "ann-recordings.csv"), wave = try ActivityLabel("wave")
        #expect(after.count == before.count && after.contains(wave))
    }

    @Test(arguments: [
        (["relabel", "nope", "--from", "1", "--to", "2", "--as", "wave"], "the catalog has no session nope"),
        (["relabel", "ID", "--from", "3", "--to", "2", "--as", "wave"], "--from 3.0 must be a number of seconds"),
        (["relabel", "ID", "--from", "1", "--to", "2", "--as", "a/b"], "gesture 'a/b' contains '/'"),
        (["relabel", "ID", "--from", "500", "--to", "600", "--as", "wave"], "has no rows from 500.00 to 600.00 s"),
        (["relabel", "ID", "--from", "-9", "--to", "-1", "--as", "wave"], "has no rows from -9.00 to -1.00 s"),
        (["trim", "ID", "--from", "-9", "--to", "-1"], "has no rows from -9.00 to -1.00 s"),
        (["trim", "ID", "--from", "500", "--to", "600"], "has no rows from 500.00 to 600.00 s"),
        (["undo", "nope"], "the catalog has no session nope"),
        (["align", "nope"], "the catalog has no session nope"),
        (["trim", "nope", "--from", "1", "--to", "2"], "the catalog has no session nope"),
        (["segment", "nope"], "the catalog has no session nope"),
        (["discard", "nope", "--reason", "test"], "the catalog has no session nope"),
        (["restore", "nope"], "the catalog has no session nope"),
    ])
    func badInputIsOneLineExitCodeTwoAndChangesNothing(arguments: [String], message: String) throws {
        let folder = try TemporaryFolder()
        let id = try recordChops(in: folder, takes: 1)[0].id
        let before = try recordingLines(in: folder.recordings)
        let catalog = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output
        let result = try runGesture(arguments.map { $0 == "ID" ? id.rawValue : $0 }, in: folder.path)
        #expect(try runGesture(["sessions", "--json"], in: folder.path).succeeded().output == catalog)
        #expect(result.status == 2, "\(arguments)")
        #expect(result.error.hasPrefix("gesture: "))
        #expect(result.error.contains(message), "\(result.error)")
        #expect(result.error.split(separator: "\n").count == 1)
        #expect(try recordingLines(in: folder.recordings) == before)
    }

    /// A take's one burst is where the aligner put the chop; answered `s` it stays chop, and with
    /// no answer at all nothing changes.
    @Test func segmentLabelsTheBurstsAsToldOrAsAnswered() throws {
        let folder = try TemporaryFolder()
        let record = try recordChops(in: folder, takes: 1)[0]
        let before = try recordingLines(in: folder.recordings)
        let chops = try labels(of: record.id, in: folder, file: "ann-recordings.csv")
        let skipped = try runGesture(["segment", record.id.rawValue], in: folder.path, input: "s\n").succeeded()
        #expect(skipped.output.contains("burst 1 of 1: "))
        #expect(try recordingLines(in: folder.recordings) == before)
        let unanswered = try runGesture(["segment", record.id.rawValue], in: folder.path)
        #expect(unanswered.status == 1)
        #expect(unanswered.error == "gesture: no label for burst 1 of 1 before the end of input; nothing changed\n")
        #expect(try recordingLines(in: folder.recordings) == before)
        try runGesture(["segment", record.id.rawValue, "--as", "wave"], in: folder.path).succeeded()
        let wave = try ActivityLabel("wave")
        let waves = try labels(of: record.id, in: folder, file: "ann-recordings.csv")
        #expect(waves == chops.map { $0 == .chop ? wave : $0 })
        try runGesture(["check"], in: folder.path).succeeded()
    }

    @Test func trimMovesTheEndsToDiscardedAndUndoBringsThemBackInOrder() throws {
        let folder = try TemporaryFolder()
        let id = try recordChops(in: folder)[0].id
        let before = try readRows(folder.recordings.root.appending("ann-recordings.csv")).filter { $0.session == id }
        let lines = try recordingLines(in: folder.recordings)
        let trim = try runGesture(["trim", id.rawValue, "--from", "2", "--to", "10"], in: folder.path).succeeded()
        #expect(trim.output.contains("2.00–10.00 s"))
        let kept = try readRows(folder.recordings.root.appending("ann-recordings.csv")).filter { $0.session == id }
        #expect(kept == before.filter { (2...10).contains($0.timestamp) })
        let cut = try readRows(folder.recordings.root.appending("discarded/ann-recordings.csv"))
        #expect(cut == before.filter { !(2...10).contains($0.timestamp) })
        #expect(try recordingLines(in: folder.recordings) == lines)
        let sessions = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output
        #expect(sessions.contains("\"sampleCount\":\(kept.count)"))
        try runGesture(["check"], in: folder.path).succeeded()
        try runGesture(["undo", id.rawValue], in: folder.path).succeeded()
        #expect(
            try readRows(folder.recordings.root.appending("ann-recordings.csv")).filter { $0.session == id } == before)
        #expect(try recordingLines(in: folder.recordings) == lines)
        try runGesture(["check"], in: folder.path).succeeded()
    }

    /// Stops each change of labels dead (SIGKILL) after each of its durable steps in turn: `check`
    /// names what is unfinished, `check --repair` finishes it, every row stays in exactly one place
    /// (labels aside), and the files end as a run that was never stopped leaves them.
    @Test(arguments: [("relabel", 2), ("align", 2), ("undo", 2), ("trim", 4), ("untrim", 4), ("segment", 2)])
    func aLabelChangeKilledAfterAnyStepIsRepairedWithoutLosingARow(command: String, steps: Int) throws {
        let template = try TemporaryFolder()
        let id = try recordChops(in: template)[1].id.rawValue
        let relabel = ["relabel", id, "--from", "1", "--to", "2", "--as", "wave"]
        let trim = ["trim", id, "--from", "2", "--to", "10"]
        let arguments =
            switch command {
            case "relabel": relabel
            case "align": ["align", "--prompted", id]
            case "trim": trim
            case "segment": ["segment", id, "--as", "wave"]
            default: ["undo", id]
            }
        if command == "undo" { try runGesture(relabel, in: template.path).succeeded() }
        if command == "untrim" { try runGesture(trim, in: template.path).succeeded() }
        let rows = try unlabeledLines(in: template.recordings)
        let finished = try TemporaryFolder()
        try FileManager.default.removeItem(atPath: finished.path.string)
        try FileManager.default.copyItem(atPath: template.path.string, toPath: finished.path.string)
        try runGesture(arguments, in: finished.path).succeeded()
        let expected = try recordingLines(in: finished.recordings)
        var step = 1
        while true {
            let folder = try TemporaryFolder()
            try FileManager.default.removeItem(atPath: folder.path.string)
            try FileManager.default.copyItem(atPath: template.path.string, toPath: folder.path.string)
            let environment = ProcessInfo.processInfo.environment.merging(["GESTURE_CRASH_AFTER_STEP": "\(step)"]) {
                $1
            }
            let result = try runGesture(arguments, in: folder.path, environment: environment)
            if result.status == 0 { break }
            #expect(result.status == SIGKILL, "step \(step): \(result.error)")
            // Rows in two files at worst, never in none.
            #expect(Set(try unlabeledLines(in: folder.recordings).keys) == Set(rows.keys), "step \(step)")
            let check = try runGesture(["check"], in: folder.path)
            #expect(check.status == 0 || check.output.contains("(--repair will"), "step \(step): \(check.output)")
            try runGesture(["check", "--repair"], in: folder.path).succeeded()
            #expect(try unlabeledLines(in: folder.recordings) == rows, "step \(step)")
            #expect(try recordingLines(in: folder.recordings) == expected, "step \(step)")
            try runGesture(["check"], in: folder.path).succeeded()
            step += 1
        }
        #expect(step == steps + 1, "the catalog, then each file rewritten")
    }
}

@Suite struct ContinuousRecordingTests {
    /// The simulated person makes a gesture every 5 s from 1 s into the session; segment finds each
    /// and labels the ones answered, skipping the one answered `s`.
    @Test func aContinuousRecordingIsRestUntilSegmented() throws {
        let folder = try TemporaryFolder()
        let recorded = try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--continuous", "--seconds", "20", "--perform", "shake",
                "chop", "drive",
                "--fast", "--quiet", "--keep",
            ], in: folder.path
        ).succeeded()
        #expect(recorded.output.contains("1 take, 2000 rows appended"))
        let records = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(records.map(\.gesture) == [.rest])
        #expect(records.map(\.promptFrom) == [nil])
        let id = records[0].id
        #expect(try labels(of: id, in: folder, file: "ann-recordings.csv").allSatisfy(\.isRest))
        let segmented = try runGesture(["segment", id.rawValue], in: folder.path, input: "shake\ns\ndrive\n")
            .succeeded()
        #expect(segmented.output.contains("3 bursts found"))
        let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv"))
        let spans = [LabelSpan](runsOf: rows)
        #expect(spans.map(\.label) == [.shake, .drive])
        for (span, go) in zip(spans, [1.0, 11.0]) {
            #expect(span.from > go + 0.1 && span.from < go + 0.8, "\(span)")
            #expect(span.to > go + 2.6 && span.to < go + 3.5, "\(span)")
        }
        try runGesture(["check"], in: folder.path).succeeded()
    }

    @Test func aContinuousRecordingLabeledAsAGestureIsThatGestureThroughout() throws {
        let folder = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--continuous", "--as", "wave", "--seconds", "3",
                "--fast", "--quiet",
                "--keep",
            ],
            in: folder.path
        ).succeeded()
        let rows = try readRows(folder.recordings.root.appending("ann-recordings.csv"))
        #expect(rows.count == 300)
        #expect(rows.allSatisfy { $0.activity.rawValue == "wave" })
        try runGesture(["check"], in: folder.path).succeeded()
    }

    /// Ctrl-C is how a continuous recording ends: the take is kept and the exit code is 0.
    @Test func ctrlCEndsAContinuousRecordingAndKeepsIt() throws {
        let folder = try TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = ["record", "--device", "sim", "--user", "ann", "--continuous", "--quiet", "--keep"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path.string)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runDyingWithTests()
        let file = folder.path.appending("recordings/ann-recordings.csv").string
        while process.isRunning, ((try? String(contentsOfFile: file, encoding: .utf8))?.count ?? 0) < 20_000 {
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let records = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(records.map(\.status) == [.kept])
        #expect(records.map(\.sampleCount) == [try readRows(FilePath(file)).count])
        try runGesture(["check"], in: folder.path).succeeded()
    }

    @Test func aRecordingWithNeitherAGestureNorContinuousIsRefused() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["record", "--device", "sim", "--user", "ann", "--fast", "--quiet"], in: folder.path)
        #expect(result.status == 2)
        #expect(result.error == "gesture: --gesture is required, unless --continuous\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path.appending("recordings").string))
    }
}
