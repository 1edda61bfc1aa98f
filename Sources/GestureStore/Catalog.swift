import Foundation
import GRDB
import GestureCore

import struct SystemPackage.Errno
import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// Whether a session's rows count.
public enum SessionStatus: String, Codable, Sendable, CaseIterable {
    case kept
    case discarded
    /// Ended early: interrupted, or its sensor failed; the reason says which.
    case incomplete
}

/// One session as the catalog records it.
public struct SessionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "sessions"

    public var id: SessionID
    public var user: UserID
    public var gesture: ActivityLabel
    public var take: Int
    /// Wall-clock start and end, ISO 8601.
    public var start: String
    public var end: String
    public var device: String
    public var requestedRate: Double
    /// The rate the device was set to: the nearest it offers to the one requested.
    public var deviceRate: Double
    public var achievedRate: Double
    /// Root mean square of the sample interval's deviation from the nominal period, in ms.
    public var jitterMs: Double
    public var sampleCount: Int
    /// The recording file, relative to the recordings folder.
    public var file: String
    public var status: SessionStatus
    public var reason: String?
    /// When the prompt said go and stop, seconds since the session started; nil for sessions
    /// recorded without prompts.
    public var promptFrom: Double?
    public var promptTo: Double?
    /// What aligning the labels with the motion found; nil if they were never aligned.
    public var alignment: AlignmentStatus?
    /// The spans the rows' labels follow (the last span holding a row gives its label, rest if
    /// none); nil: the labels are as the file has them, never changed.
    public var labels: [LabelSpan]?
    /// The stretch of the session its file keeps, when trimmed, seconds since it started; its rows
    /// outside it are in recordings/discarded/.
    public var keptFrom: Double?
    public var keptTo: Double?

    public init(
        id: SessionID, user: UserID, gesture: ActivityLabel, take: Int, start: String, end: String, device: String,
        requestedRate: Double, deviceRate: Double, achievedRate: Double, jitterMs: Double, sampleCount: Int,
        file: String, status: SessionStatus, reason: String? = nil, promptFrom: Double? = nil,
        promptTo: Double? = nil
    ) {
        self.promptFrom = promptFrom
        self.promptTo = promptTo
        self.id = id
        self.user = user
        self.gesture = gesture
        self.take = take
        self.start = start
        self.end = end
        self.device = device
        self.requestedRate = requestedRate
        self.deviceRate = deviceRate
        self.achievedRate = achievedRate
        self.jitterMs = jitterMs
        self.sampleCount = sampleCount
        self.file = file
        self.status = status
        self.reason = reason
    }
}

// Stored as their text; a row whose user or gesture is not a valid name fails to decode.
extension SessionID: DatabaseValueConvertible {}
extension UserID: DatabaseValueConvertible {}
extension ActivityLabel: DatabaseValueConvertible {}
extension SessionStatus: DatabaseValueConvertible {}

/// What aligning a session's labels with its motion found.
public enum AlignmentStatus: String, Codable, Sendable {
    /// The gesture's labels follow the motion found inside the prompt.
    case aligned
    /// Nothing moved inside the prompt: the labels are the prompt's, and the take is suspect.
    case noMotion = "no-motion"
    /// Too little rest to tell motion from; the labels are the prompt's.
    case noRest = "no-rest"
}

extension AlignmentStatus: DatabaseValueConvertible {}

/// A session's labels as the catalog holds them: its gesture, the spans its rows' labels follow
/// (nil: as the file has them), what aligning them found, and the stretch its file keeps (nil: all).
public struct SessionLabels: Codable, Sendable, Equatable {
    public var gesture: ActivityLabel
    public var labels: [LabelSpan]?
    public var alignment: AlignmentStatus?
    public var kept: ClosedRange<Double>?

    public init(
        gesture: ActivityLabel, labels: [LabelSpan]?, alignment: AlignmentStatus?, kept: ClosedRange<Double>? = nil
    ) {
        self.gesture = gesture
        self.labels = labels
        self.alignment = alignment
        self.kept = kept
    }
}

extension SessionLabels {
    /// These labels with `spans` laid over them, one after the other; the gesture becomes the
    /// longest stretch's label other than rest.
    func overlaid(with spans: [LabelSpan]) -> SessionLabels {
        var labels = self
        labels.labels = spans.reduce(self.labels ?? []) { $0.overlaid(with: $1) }
        let longest = labels.labels!.filter { !$0.label.isRest }.max { $0.to - $0.from < $1.to - $1.from }
        labels.gesture = longest?.label ?? gesture
        return labels
    }
}

extension SessionRecord {
    public var sessionLabels: SessionLabels {
        get { SessionLabels(gesture: gesture, labels: labels, alignment: alignment, kept: kept) }
        set {
            (gesture, labels, alignment) = (newValue.gesture, newValue.labels, newValue.alignment)
            (keptFrom, keptTo) = (newValue.kept?.lowerBound, newValue.kept?.upperBound)
        }
    }

    public var kept: ClosedRange<Double>? { keptFrom.flatMap { from in keptTo.map { from...$0 } } }

    /// Whether a row at `time` belongs in the session's own file: the session is not discarded,
    /// and the row is not trimmed off.
    func keepsRow(at time: Double) -> Bool { status != .discarded && kept?.contains(time) != false }
}

/// A change to a session's labels: what they were and become, the history's name for it, and
/// the change it undoes, if it is an undo.
public struct LabelChange: Sendable {
    public var id: SessionID
    public var before: SessionLabels
    public var after: SessionLabels
    public var action: String
    public var undoing: Int64?
    /// The session's rows within its new kept stretch, when that changes.
    public var sampleCount: Int?

    public init(
        _ id: SessionID, from before: SessionLabels, to after: SessionLabels, action: String, undoing: Int64? = nil,
        sampleCount: Int? = nil
    ) {
        self.sampleCount = sampleCount
        self.id = id
        self.before = before
        self.after = after
        self.action = action
        self.undoing = undoing
    }
}

/// A session's new status, and why.
public struct StatusChange: Sendable, Equatable {
    public var id: SessionID
    public var status: SessionStatus
    public var reason: String?

    public init(_ id: SessionID, _ status: SessionStatus, reason: String? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
    }
}

/// Which sessions to list.
public struct SessionFilter: Sendable {
    public var user: UserID?
    public var gesture: ActivityLabel?
    public var status: SessionStatus?
    public var ids: [SessionID]?

    public init(
        user: UserID? = nil, gesture: ActivityLabel? = nil, status: SessionStatus? = nil, ids: [SessionID]? = nil
    ) {
        self.user = user
        self.gesture = gesture
        self.status = status
        self.ids = ids
    }
}

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
            while flock(lock.rawValue, LOCK_EX) != 0 {
                guard errno == EINTR else { throw Errno(rawValue: errno) }
            }
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

    /// The schema's history. Never edit a migration that has shipped: add one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sessions") { db in
            try db.create(table: "sessions") { t in
                t.primaryKey("id", .text)
                t.column("user", .text).notNull().indexed()
                t.column("gesture", .text).notNull()
                t.column("take", .integer).notNull()
                t.column("start", .text).notNull()
                t.column("end", .text).notNull()
                t.column("device", .text).notNull()
                t.column("requestedRate", .double).notNull()
                t.column("achievedRate", .double).notNull()
                t.column("jitterMs", .double).notNull()
                t.column("sampleCount", .integer).notNull()
                t.column("file", .text).notNull()
                t.column("status", .text).notNull()
                    .check { SessionStatus.allCases.map(\.rawValue).contains($0) }
                t.column("reason", .text)
            }
        }
        migrator.registerMigration("v2: session history") { db in
            try db.create(table: "session_events") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("session", .text).notNull().indexed().references("sessions", onDelete: .cascade)
                t.column("at", .text).notNull()
                t.column("action", .text).notNull()
                t.column("reason", .text)
            }
        }
        migrator.registerMigration("v3: device rate") { db in
            try db.alter(table: "sessions") { t in
                t.add(column: "deviceRate", .double).notNull().defaults(to: 0)
            }
            try db.execute(sql: "UPDATE sessions SET deviceRate = requestedRate")
        }
        migrator.registerMigration("v4: labels") { db in
            try db.alter(table: "sessions") { t in
                t.add(column: "promptFrom", .double)
                t.add(column: "promptTo", .double)
                t.add(column: "alignment", .text)
                t.add(column: "labels", .text)
                t.add(column: "keptFrom", .double)
                t.add(column: "keptTo", .double)
            }
            try db.alter(table: "session_events") { t in
                t.add(column: "labelsBefore", .text)
                t.add(column: "undoes", .integer)
            }
        }
        return migrator
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
            _ = try SessionRecord.filter(key: id).filter(Column("sampleCount") == 0).deleteAll(db)
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
                if let user = filter.user { request = request.filter(Column("user") == user) }
                if let gesture = filter.gesture { request = request.filter(Column("gesture") == gesture) }
                if let status = filter.status { request = request.filter(Column("status") == status) }
                if let ids = filter.ids { request = request.filter(ids.contains(Column("id"))) }
                return try request.order(Column("start"), Column("take")).fetchAll(db)
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
