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
        return migrator
    }
}
