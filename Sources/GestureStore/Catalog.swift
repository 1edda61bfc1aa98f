import Foundation
import GRDB
import GestureCore

import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// The SQLite catalog of every session recorded, with a history of discards and restores.
public final class Catalog: Sendable {
    private let database: DatabaseQueue
    private let path: String

    /// How long a write waits for another process's transaction before it gives up.
    public static let patience: Duration = .seconds(60)

    /// Opens the catalog, creating it and bringing its schema up to date if needed; `waiting` is
    /// told when another process's write holds this one up.
    public init(path: String, waiting: (@Sendable (String) -> Void)? = nil) throws(StoreError) {
        self.path = path
        do {
            // A folder others may read but not write (a shared dataset, a read-only mount) is opened
            // read-only: listing, stats and training only read it.
            let writable = access(FilePath(path).removingLastComponent().string, W_OK) == 0
            var configuration = Configuration()
            configuration.busyMode = .callback(Self.waitWhileBusy(path: path, saying: waiting))
            configuration.readonly = !writable
            database = try DatabaseQueue(path: path, configuration: configuration)
            if writable { try Self.migrateOnce(database, path: path) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("catalog \(path): \(Self.reason(error))")
        }
    }

    /// SQLite asks again and again while another process writes: say so once, then retry every
    /// 10 ms until `patience` runs out.
    private static func waitWhileBusy(
        path: String, saying waiting: (@Sendable (String) -> Void)?
    ) -> Database.BusyCallback {
        let interval = Duration.milliseconds(10)
        let tries = Int(patience / interval)
        return { attempt in
            if attempt == 0 { waiting?("waiting for another gesture process to finish writing the catalog \(path)…") }
            guard attempt < tries else { return false }
            usleep(UInt32(interval / .microseconds(1)))
            return true
        }
    }

    /// Two processes opening a new folder at once would both create its tables: GRDB reads which
    /// migrations ran before it takes the write lock. A file lock beside the catalog serialises that.
    private static func migrateOnce(_ database: DatabaseQueue, path: String) throws {
        let locks = FilePath(path).removingLastComponent().appending(".locks")
        try FileManager.default.createDirectory(atPath: locks.string, withIntermediateDirectories: true)
        let lock = try FileDescriptor.open(
            locks.appending("catalog.lock"), .readWrite, options: [.create],
            permissions: [.ownerReadWrite, .groupRead, .otherRead])
        try lock.closeAfter {
            try lock.waitForExclusiveLock()
            try migrator.migrate(database)
        }
    }

    /// SQLite's words for a busy or read-only catalog, without GRDB's statement text.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "another process has held it locked for more than \(patience.components.seconds) s"
        case .SQLITE_READONLY: return "it is read-only"
        case .SQLITE_FULL: return "the disk is full"
        default: return error.message ?? "\(error)"
        }
    }

    /// The migrations this catalog has applied, oldest first.
    public func appliedMigrations() throws -> [String] {
        try database.read { try Self.migrator.appliedMigrations($0) }
    }

    public func insert(_ record: SessionRecord) throws(StoreError) {
        try write("add session \(record.id)") { db in
            try record.insert(db)
            try Self.log(db, session: record.id, action: "recorded", reason: nil)
        }
    }

    /// Adds a session unless one with its ID exists; says whether it did.
    public func insertUnlessTaken(_ record: SessionRecord) throws(StoreError) -> Bool {
        var inserted = false
        try write("add session \(record.id)") { db in
            guard try !record.exists(db) else { return }
            try record.insert(db)
            try Self.log(db, session: record.id, action: "recorded", reason: nil)
            inserted = true
        }
        return inserted
    }

    /// Adds the sessions that are missing and replaces those whose record differs, in one
    /// transaction; returns how many it changed.
    public func save(_ records: [SessionRecord]) throws(StoreError) -> Int {
        var changed = 0
        try write("save \(records.count) sessions") { db in
            for record in records where try SessionRecord.fetchOne(db, key: record.id) != record {
                let existed = try record.exists(db)
                try record.save(db)
                try Self.log(db, session: record.id, action: existed ? "replaced" : "recorded", reason: nil)
                changed += 1
            }
        }
        return changed
    }

    /// Takes back a session that never got a row: a recording stopped before its first take.
    public func withdraw(_ id: SessionID) throws(StoreError) {
        try write("withdraw session \(id)") { db in
            _ = try SessionRecord.filter(key: id).filter(SessionRecord.Columns.sampleCount == 0).deleteAll(db)
        }
    }

    /// Saves a take as it ended, kept or incomplete, and notes that in its history.
    public func finish(_ record: SessionRecord) throws(StoreError) {
        try write("save session \(record.id)") { db in
            try record.save(db)
            try Self.log(db, session: record.id, action: record.status.rawValue, reason: record.reason)
        }
    }

    /// Gives sessions new statuses in one transaction and notes each in their history.
    public func setStatus(_ changes: [StatusChange]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        try write("change the status of \(changes.count) sessions") { db in
            for change in changes {
                guard var record = try SessionRecord.fetchOne(db, key: change.id) else { continue }
                record.status = change.status
                record.reason = change.reason
                try record.update(db)
                try Self.log(db, session: change.id, action: change.status.rawValue, reason: change.reason)
            }
        }
    }

    /// Gives sessions new labels in one transaction, noting each change and the labels before it
    /// in their history.
    public func setLabels(_ changes: [LabelChange]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        try write("relabel \(changes.count.counting("session"))") { db in
            for change in changes {
                guard var record = try SessionRecord.fetchOne(db, key: change.id) else { continue }
                let before = String(decoding: try JSONEncoder().encode(change.before), as: UTF8.self)
                record.sessionLabels = change.after
                record.sampleCount = change.sampleCount ?? record.sampleCount
                try record.update(db)
                try db.execute(
                    sql: """
                        INSERT INTO session_events (session, at, action, labelsBefore, undoes) VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: [change.id, WallClock.iso8601(Date()), change.action, before, change.undoing])
            }
        }
    }

    /// The last change to a session's labels that is neither an undo nor undone: its event, its
    /// action and the labels before it.
    public func lastLabelChange(
        of id: SessionID
    ) throws(StoreError) -> (event: Int64, action: String, before: SessionLabels)? {
        do {
            return try database.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT id, action, labelsBefore FROM session_events
                        WHERE session = ? AND labelsBefore IS NOT NULL AND undoes IS NULL
                          AND id NOT IN (SELECT undoes FROM session_events WHERE undoes IS NOT NULL)
                        ORDER BY id DESC LIMIT 1
                        """, arguments: [id])
                guard let row else { return nil }
                let before = try JSONDecoder().decode(
                    SessionLabels.self, from: Data((row["labelsBefore"] as String).utf8))
                return (row["id"], row["action"], before)
            }
        } catch {
            throw StoreError("catalog \(path): cannot read the history of \(id): \(Self.reason(error))")
        }
    }

    /// The status a discarded session goes back to: how its recording ended, as its history says.
    public func statusBeforeDiscard(of id: SessionID) throws(StoreError) -> StatusChange {
        let last = try history(of: id).last { $0.action != SessionStatus.discarded.rawValue }
        guard let last, let status = SessionStatus(rawValue: last.action) else { return StatusChange(id, .kept) }
        return StatusChange(id, status, reason: last.reason)
    }

    public func sessions(_ filter: SessionFilter = SessionFilter()) throws(StoreError) -> [SessionRecord] {
        do {
            return try database.read { db in
                var request = SessionRecord.all()
                if let user = filter.user { request = request.filter(SessionRecord.Columns.user == user) }
                if let gesture = filter.gesture { request = request.filter(SessionRecord.Columns.gesture == gesture) }
                if let status = filter.status { request = request.filter(SessionRecord.Columns.status == status) }
                if let ids = filter.ids { request = request.filter(ids.contains(SessionRecord.Columns.id)) }
                return try request.order(SessionRecord.Columns.start, SessionRecord.Columns.take).fetchAll(db)
            }
        } catch {
            throw StoreError("catalog \(path): cannot read sessions: \(Self.reason(error))")
        }
    }

    /// What happened to a session, oldest first: (time, action, reason).
    public func history(of id: SessionID) throws(StoreError) -> [(at: String, action: String, reason: String?)] {
        do {
            return try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT at, action, reason FROM session_events WHERE session = ? ORDER BY id",
                    arguments: [id]
                )
                .map { ($0["at"], $0["action"], $0["reason"]) }
            }
        } catch {
            throw StoreError("catalog \(path): cannot read the history of \(id): \(Self.reason(error))")
        }
    }

    private func write(_ what: String, _ body: (Database) throws -> Void) throws(StoreError) {
        do {
            try database.write(body)
        } catch {
            throw StoreError("catalog \(path): cannot \(what): \(Self.reason(error))")
        }
        CrashPoint.stepCompleted()
    }

    private static func log(_ db: Database, session: SessionID, action: String, reason: String?) throws {
        try db.execute(
            sql: "INSERT INTO session_events (session, at, action, reason) VALUES (?, ?, ?, ?)",
            arguments: [session, WallClock.iso8601(Date()), action, reason])
    }
}

/// Wall-clock times as the catalog and session IDs write them.
public enum WallClock {
    public static func iso8601(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
