import ArgumentParser
import Foundation
import GestureArchive
import GestureCommandLine
import GestureCore
import GestureStore

struct Align: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make sessions' gesture labels follow the motion inside the prompt; gesture undo takes it back.",
        discussion: """
            The prompt is the catalog's (when the recorder said go and stop), else the stretch from the \
            first to the last row labeled with the session's gesture, as in imported and book-format \
            recordings. Without IDs, every kept or incomplete session that was never aligned; with \
            --prompted, every one whose labels were aligned.
            """)

    @OptionGroup var folder: FolderOptions
    @Flag(help: "Label the gesture over the prompt instead, as it was recorded.") var prompted = false
    @Argument(help: "Session IDs, as `gesture sessions` lists them.", completion: Completions.keptSessions)
    var ids: [String] = []

    func run() throws {
        let aligned = try changing {
            let archive = try folder.archive()
            let ids =
                ids.isEmpty
                ? try archive.catalog.sessions().filter {
                    $0.status != .discarded && $0.alignment == (prompted ? .aligned : nil)
                }.map(\.id)
                : ids.map(SessionID.init(rawValue:))
            return try archive.align(ids, prompted: prompted)
        }
        Terminal.say(Summary.labels(aligned.map(\.record), prompts: aligned.map(\.prompt)))
        Terminal.say("\(aligned.count.counting("session")) \(prompted ? "labeled as prompted" : "aligned")")
    }
}

struct Relabel: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Label a stretch of a session's rows as a gesture, or as rest; gesture undo takes it back.")

    @OptionGroup var folder: FolderOptions
    @Option(
        parsing: .unconditional, help: "Seconds since the session started where the stretch begins (that row included)."
    )
    var from: Double
    @Option(
        parsing: .unconditional, help: "Seconds since the session started where the stretch ends (that row included).")
    var to: Double
    @Option(name: .customLong("as"), help: "The label: a gesture, or rest.", completion: Completions.gestures)
    var label: String
    @Argument(help: "The session ID, as `gesture sessions` lists it.", completion: Completions.sessions)
    var id: String

    func run() throws {
        let label = try activityLabel(label)
        let record = try changing {
            try folder.archive().relabel(SessionID(rawValue: id), from: from, to: to, as: label)
        }
        Terminal.say(Summary.labels([record], prompts: [nil]))
    }
}

struct Trim: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Cut a session's ends: its rows outside a stretch move to recordings/discarded/; gesture undo brings them back."
    )

    @OptionGroup var folder: FolderOptions
    @Option(parsing: .unconditional, help: "Seconds since the session started of the first row kept.") var from: Double
    @Option(parsing: .unconditional, help: "Seconds since the session started of the last row kept.") var to: Double
    @Argument(help: "The session ID, as `gesture sessions` lists it.", completion: Completions.sessions)
    var id: String

    func run() throws {
        let record = try changing { try folder.archive().trim(SessionID(rawValue: id), from: from, to: to) }
        Terminal.say(Summary.labels([record], prompts: [nil]))
    }
}

struct Segment: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Find the bursts of motion in a session recorded without prompts and label them; gesture undo takes it back.",
        discussion: """
            With --as, every burst gets that label. Without it, each burst is shown and a label asked \
            for: a gesture, rest, or s to skip it. Nothing changes until every burst is answered.
            """)

    @OptionGroup var folder: FolderOptions
    @Option(name: .customLong("as"), help: "Label every burst so.", completion: Completions.gestures)
    var label: String?
    @Argument(help: "The session ID, as `gesture sessions` lists it.", completion: Completions.sessions)
    var id: String

    func run() throws {
        let given = try label.map(activityLabel)
        let (record, bursts) = try changing {
            try folder.archive().segment(SessionID(rawValue: id)) { burst, number, count throws(StoreError) in
                if let given { return given }
                return try Self.ask(burst, number, count)
            }
        }
        Terminal.say(Summary.labels([record], prompts: [nil]))
        Terminal.say("\(bursts.count.counting("burst")) found")
    }

    private static func ask(
        _ burst: ClosedRange<Double>, _ number: Int, _ count: Int
    ) throws(StoreError) -> ActivityLabel? {
        let question = String(
            format: "burst %d of %d: %.2f–%.2f s (%.2f s). Label (a gesture, rest, or s to skip)?", number, count,
            burst.lowerBound, burst.upperBound, burst.upperBound - burst.lowerBound)
        while true {
            guard let answer = Terminal.ask(question) else {
                throw StoreError("no label for burst \(number) of \(count) before the end of input; nothing changed")
            }
            if answer == "s" { return nil }
            do { return try ActivityLabel(answer) } catch { Terminal.warn("\(error)") }
        }
    }
}

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take back the last align, relabel, trim or segment of each session not yet taken back.")

    @OptionGroup var folder: FolderOptions
    @Argument(help: "Session IDs, as `gesture sessions` lists them.", completion: Completions.sessions)
    var ids: [String]

    func run() throws {
        let records = try changing { try folder.archive().undo(ids.map(SessionID.init(rawValue:))) }
        Terminal.say(Summary.labels(records, prompts: records.map { _ in nil }))
    }
}

extension Summary {
    /// Each session's labeled stretches and prompt: `shake 4.71–8.93 s`.
    static func labels(_ records: [SessionRecord], prompts: [ClosedRange<Double>?]) -> String {
        let seconds = { (from: Double, to: Double) in String(format: "%.2f–%.2f s", from, to) }
        let rows = zip(records, prompts).map { record, prompt in
            let spans = (record.labels ?? []).filter { !$0.label.isRest }
            let prompt = prompt ?? record.promptFrom.flatMap { from in record.promptTo.map { from...$0 } }
            return [
                record.id.rawValue, record.gesture.rawValue,
                spans.isEmpty
                    ? "as in the file"
                    : spans.map { "\($0.label) \(seconds($0.from, $0.to))" }.joined(
                        separator: ", "),
                prompt.map { seconds($0.lowerBound, $0.upperBound) } ?? "-",
                record.alignment?.rawValue ?? "-",
                record.kept.map { seconds($0.lowerBound, $0.upperBound) } ?? "all", "\(record.sampleCount)",
            ]
        }
        return table(header: ["session", "gesture", "labeled", "prompt", "alignment", "kept", "rows"], rows: rows)
    }
}
