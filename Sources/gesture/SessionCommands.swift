import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureStore

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the sessions in the catalog.")

    @OptionGroup var folder: FolderOptions
    @Option(help: "Only this user's sessions.") var user: String?
    @Option(help: "Only sessions of this gesture.") var gesture: String?
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
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            for record in records { Terminal.say(String(decoding: try encoder.encode(record), as: UTF8.self)) }
        } else {
            Terminal.say(Summary.sessions(records))
            Terminal.say("\(records.count) sessions")
        }
    }
}

extension SessionStatus: ExpressibleByArgument {}

struct Discard: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move sessions' rows into recordings/discarded/ and mark them discarded; restore undoes it.")

    @OptionGroup var folder: FolderOptions
    @Option(help: "Why, kept in the catalog.") var reason: String
    @Argument(help: "Session IDs, as `gesture sessions` lists them.") var ids: [String]

    func run() throws {
        let records = try changing { try folder.archive().discard(ids.map(SessionID.init(rawValue:)), reason: reason) }
        Terminal.say(Summary.sessions(records))
    }
}

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Put discarded sessions back into their users' files.")

    @OptionGroup var folder: FolderOptions
    @Argument(help: "Session IDs, as `gesture sessions --status discarded` lists them.") var ids: [String]

    func run() throws {
        let records = try changing { try folder.archive().restore(ids.map(SessionID.init(rawValue:))) }
        Terminal.say(Summary.sessions(records))
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify that the catalog and the CSV files agree, and say exactly where they do not.")

    @OptionGroup var folder: FolderOptions

    func run() throws {
        let report = try changing { try folder.archive().check() }
        for problem in report.problems { Terminal.say(problem) }
        guard report.isConsistent else {
            throw Failure.failed("\(report.problems.count) problems in \(folder.path)")
        }
        Terminal.say(
            "ok: \(report.sessionsChecked) sessions and \(report.rowsChecked) rows agree with \(folder.folder.catalogPath)"
        )
    }
}

private func changing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw Failure.failed(error.description)
    }
}
