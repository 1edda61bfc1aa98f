import GRDB

extension Catalog {
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
        migrator.registerMigration("v5: end optional", migrate: Self.makeEndOptional)
        return migrator
    }

    /// A session still being recorded has no end: NULL, no longer "". SQLite cannot drop NOT NULL
    /// in place, so the table is rebuilt; the migrator turns foreign keys off meanwhile, so
    /// dropping the old table leaves session_events' rows where they are.
    private static func makeEndOptional(_ db: Database) throws {
        try db.create(table: "sessions_v5") { t in
            t.primaryKey("id", .text)
            t.column("user", .text).notNull()
            t.column("gesture", .text).notNull()
            t.column("take", .integer).notNull()
            t.column("start", .text).notNull()
            t.column("end", .text)
            t.column("device", .text).notNull()
            t.column("requestedRate", .double).notNull()
            t.column("achievedRate", .double).notNull()
            t.column("jitterMs", .double).notNull()
            t.column("sampleCount", .integer).notNull()
            t.column("file", .text).notNull()
            t.column("status", .text).notNull()
                .check { SessionStatus.allCases.map(\.rawValue).contains($0) }
            t.column("reason", .text)
            t.column("deviceRate", .double).notNull().defaults(to: 0)
            for name in ["promptFrom", "promptTo"] { t.column(name, .double) }
            for name in ["alignment", "labels"] { t.column(name, .text) }
            for name in ["keptFrom", "keptTo"] { t.column(name, .double) }
        }
        let columns = try db.columns(in: "sessions").map { $0.name.quotedDatabaseIdentifier }
        let values = columns.map { $0 == "\"end\"" ? "NULLIF(\"end\", '')" : $0 }
        try db.execute(
            sql: "INSERT INTO sessions_v5 (\(columns.joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM sessions")
        try db.drop(table: "sessions")
        try db.rename(table: "sessions_v5", to: "sessions")
        try db.create(index: "sessions_on_user", on: "sessions", columns: ["user"])
    }
}
