import Foundation
import GRDB
import GestureCore

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

    public init(
        id: SessionID, user: UserID, gesture: ActivityLabel, take: Int, start: String, end: String, device: String,
        requestedRate: Double, deviceRate: Double, achievedRate: Double, jitterMs: Double, sampleCount: Int,
        file: String, status: SessionStatus, reason: String? = nil
    ) {
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

    public init(path: String) throws(StoreError) {
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            database = try DatabaseQueue(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw StoreError("catalog \(path): \(error)")
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

    public func update(_ record: SessionRecord) throws(StoreError) {
        try write("update session \(record.id)") { try record.update($0) }
    }

    /// Marks sessions with a new status and notes why in their history.
    public func setStatus(_ status: SessionStatus, reason: String?, of ids: [SessionID]) throws(StoreError) {
        try write("mark sessions \(status.rawValue)") { db in
            for id in ids {
                guard var record = try SessionRecord.fetchOne(db, key: id) else { continue }
                record.status = status
                record.reason = reason
                try record.update(db)
                try Self.log(db, session: id, action: status.rawValue, reason: reason)
            }
        }
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
            throw StoreError("catalog: cannot read sessions: \(error)")
        }
    }

    /// What happened to a session, oldest first: (time, action, reason).
    public func history(of id: SessionID) throws -> [(at: String, action: String, reason: String?)] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT at, action, reason FROM session_events WHERE session = ? ORDER BY id", arguments: [id]
            )
            .map { ($0["at"], $0["action"], $0["reason"]) }
        }
    }

    private func write(_ what: String, _ body: (Database) throws -> Void) throws(StoreError) {
        do {
            try database.write(body)
        } catch {
            throw StoreError("catalog: cannot \(what): \(error)")
        }
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
