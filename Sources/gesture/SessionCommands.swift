import ArgumentParser
import Foundation
import GestureArchive
import GestureCommandLine
import GestureCore
import GestureStore

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the sessions in the catalog.")

    @OptionGroup var folder: FolderOptions
    @Option(help: "Only this user's sessions.", completion: Completions.users) var user: String?
    @Option(help: "Only sessions of this gesture.", completion: Completions.gestures) var gesture: String?
    @Option(help: "Only sessions with this status: kept, discarded or incomplete.") var status: SessionStatus?
    @Flag(help: "One JSON object per line.") var json = false

    func run() throws {
        let records: [SessionRecord]
        do {
            let filter = SessionFilter(
                user: try user.map(userID), gesture: try gesture.map(activityLabel), status: status)
            records = try folder.archive().catalog.sessions(filter)
        } catch let error as StoreError {
            throw Failure.failed(error.description)
        }
        if json {
            for record in records { Terminal.say(try jsonLine(record)) }
        } else {
            Terminal.say(Summary.sessions(records))
            Terminal.say(records.count.counting("session"))
        }
    }
}

extension SessionStatus: ExpressibleByArgument {}

struct Discard: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move sessions' rows into recordings/discarded/ and mark them discarded; restore undoes it.")

    @OptionGroup var folder: FolderOptions
    @Option(help: "Why, kept in the catalog.") var reason: String
    @Argument(help: "Session IDs, as `gesture sessions` lists them.", completion: Completions.keptSessions)
    var ids: [String]

    func run() throws {
        let records = try changing { try folder.archive().discard(ids.map(SessionID.init(rawValue:)), reason: reason) }
        Terminal.say(Summary.sessions(records))
    }
}

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Put discarded sessions back into their users' files.")

    @OptionGroup var folder: FolderOptions
    @Argument(
        help: "Session IDs, as `gesture sessions --status discarded` lists them.",
        completion: Completions.discardedSessions)
    var ids: [String]

    func run() throws {
        let records = try changing { try folder.archive().restore(ids.map(SessionID.init(rawValue:))) }
        Terminal.say(Summary.sessions(records))
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify that the catalog and the CSV files agree, and say exactly where they do not.",
        discussion: """
            With --repair, it also repairs what it can without deleting a row: lines that are not rows \
            move to recordings/damaged/, sessions the catalog does not know are added to it as recovered, \
            rows move to the file their session's status puts them in, and row counts are taken from \
            the files. What it cannot repair it names, and exits 1.
            """)

    @OptionGroup var folder: FolderOptions
    @Flag(help: "Repair what can be repaired without deleting a row.") var repair = false
    @Flag(help: "What was found (and repaired) as one JSON object.") var json = false

    func run() throws {
        var report: CheckReport
        var repaired: [Discrepancy] = []
        if repair {
            (repaired, report) = try changing { try folder.archive().repair() }
        } else {
            report = try changing { try folder.archive().check() }
        }
        for busy in report.busy { Terminal.note("not checked: \(busy)") }
        if json {
            Terminal.say(try jsonLine(CheckJSON(report: report, repaired: repaired)))
        } else {
            for discrepancy in repaired { Terminal.say("repaired: \(discrepancy)") }
            for discrepancy in report.discrepancies {
                Terminal.say(discrepancy.description + (discrepancy.repair.map { " (--repair will \($0))" } ?? ""))
            }
        }
        guard report.isConsistent else {
            let repairable = report.discrepancies.contains { $0.repair != nil }
            throw Failure.failed(
                "\(report.discrepancies.count.counting("problem")) in \(folder.path)"
                    + (repairable && !repair ? "; `gesture check --repair` repairs those it names" : ""))
        }
        guard !json else { return }
        Terminal.say(
            "ok: \(report.sessionsChecked.counting("session")) and \(report.rowsChecked.counting("row")) agree with \(folder.folder.catalogPath)"
        )
    }
}

func changing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error.isBadRequest ? Failure.usage(error.description) : Failure.failed(error.description)
    }
}

/// `gesture check --json`: whether the folder is consistent, what disagrees and what was repaired.
private struct CheckJSON: Encodable {
    struct Finding: Encodable {
        var problem: String
        var repair: String?
    }

    var consistent: Bool
    var sessionsChecked: Int
    var rowsChecked: Int
    var busy: [String]
    var discrepancies: [Finding]
    var repaired: [String]

    init(report: CheckReport, repaired: [Discrepancy]) {
        consistent = report.isConsistent
        sessionsChecked = report.sessionsChecked
        rowsChecked = report.rowsChecked
        busy = report.busy
        discrepancies = report.discrepancies.map { Finding(problem: $0.description, repair: $0.repair) }
        self.repaired = repaired.map(\.description)
    }
}
