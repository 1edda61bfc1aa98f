import Foundation
import GRDB
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

@Suite struct CatalogTests {
    static let migrations = [
        "v1: sessions", "v2: session history", "v3: device rate", "v4: labels", "v5: end optional",
    ]

    @Test func aNewCatalogHasEveryMigration() throws {
        let folder = try TemporaryFolder()
        let catalog = try Catalog(path: folder.path.appending("catalog.sqlite").string)
        #expect(
            try catalog.appliedMigrations() == Self.migrations)
    }

    @Test func anOldCatalogIsMigratedAndKeepsItsSessions() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("catalog.sqlite").string
        // A catalog as the first version wrote it, with one session and no history table.
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1: sessions');
                    CREATE TABLE sessions (id TEXT PRIMARY KEY, user TEXT NOT NULL, gesture TEXT NOT NULL,
                      take INTEGER NOT NULL, start TEXT NOT NULL, "end" TEXT NOT NULL, device TEXT NOT NULL,
                      requestedRate DOUBLE NOT NULL, achievedRate DOUBLE NOT NULL, jitterMs DOUBLE NOT NULL,
                      sampleCount INTEGER NOT NULL, file TEXT NOT NULL, status TEXT NOT NULL, reason TEXT);
                    INSERT INTO sessions VALUES ('s-1', 'bob', 'chop', 1, 'a', 'b', 'sim', 100, 99.9, 0.1, 42,
                      'bob-recordings.csv', 'kept', NULL);
                    """)
        }
        try old.close()
        let catalog = try Catalog(path: path)
        #expect(
            try catalog.appliedMigrations() == Self.migrations)
        #expect(try catalog.sessions().map(\.sampleCount) == [42])
        #expect(try catalog.sessions().map(\.deviceRate) == [100])
        let session = SessionID(rawValue: "s-1")
        #expect(try catalog.sessions().map(\.user) == [try UserID("bob")])
        try catalog.setStatus([StatusChange(session, .discarded, reason: "test")])
        #expect(try catalog.history(of: session).map(\.action) == ["discarded"])
    }

    @Test func aSessionWithoutAnEndHasNoneAfterTheMigrationAndKeepsItsHistory() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("catalog.sqlite").string
        // A catalog as the fourth version wrote it: a session still being recorded had the end "".
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1: sessions'), ('v2: session history'),
                      ('v3: device rate'), ('v4: labels');
                    CREATE TABLE sessions (id TEXT PRIMARY KEY, user TEXT NOT NULL, gesture TEXT NOT NULL,
                      take INTEGER NOT NULL, start TEXT NOT NULL, "end" TEXT NOT NULL, device TEXT NOT NULL,
                      requestedRate DOUBLE NOT NULL, achievedRate DOUBLE NOT NULL, jitterMs DOUBLE NOT NULL,
                      sampleCount INTEGER NOT NULL, file TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,
                      deviceRate DOUBLE NOT NULL DEFAULT 0, promptFrom DOUBLE, promptTo DOUBLE, alignment TEXT,
                      labels TEXT, keptFrom DOUBLE, keptTo DOUBLE);
                    CREATE TABLE session_events (id INTEGER PRIMARY KEY AUTOINCREMENT,
                      session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, at TEXT NOT NULL,
                      action TEXT NOT NULL, reason TEXT, labelsBefore TEXT, undoes INTEGER);
                    INSERT INTO sessions VALUES
                      ('s-1', 'bob', 'chop', 1, 'a', 'b', 'sim', 100, 99.9, 0.1, 42, 'f.csv', 'kept', NULL,
                        100, 1, 4, NULL, NULL, NULL, NULL),
                      ('s-2', 'bob', 'chop', 2, 'c', '', 'sim', 100, 99.9, 0.1, 7, 'f.csv', 'incomplete',
                        'interrupted', 100, NULL, NULL, NULL, NULL, NULL, NULL);
                    INSERT INTO session_events (session, at, action, reason) VALUES ('s-2', 'c', 'incomplete', 'x');
                    """)
        }
        try old.close()
        let catalog = try Catalog(path: path)
        #expect(try catalog.appliedMigrations() == Self.migrations)
        #expect(try catalog.sessions().map(\.end) == ["b", nil])
        #expect(try catalog.sessions().map(\.promptTo) == [4, nil])
        #expect(try catalog.history(of: SessionID(rawValue: "s-2")).map(\.action) == ["incomplete"])
        try catalog.setStatus([StatusChange(SessionID(rawValue: "s-2"), .discarded, reason: "test")])
        #expect(try catalog.history(of: SessionID(rawValue: "s-2")).map(\.action) == ["incomplete", "discarded"])
    }

    @Test func sessionsAreFilteredByUserGestureAndStatus() async throws {
        let folder = try TemporaryFolder()
        try await recordFast(try plan("alice", "shake", takes: 2), in: folder.recordings)
        try await recordFast(
            try plan("bob", "chop", takes: 1), in: folder.recordings,
            date: Date(timeIntervalSince1970: 1_800_000_100))
        let catalog = try Catalog(path: folder.recordings.catalogPath.string)
        #expect(try catalog.sessions(SessionFilter(user: UserID("alice"))).count == 2)
        #expect(try catalog.sessions(SessionFilter(gesture: .chop)).map(\.user) == [try UserID("bob")])
        #expect(try catalog.sessions(SessionFilter(status: .discarded)).isEmpty)
    }

    @Test func manyProcessesOpeningANewCatalogAtOnceAllSucceed() async throws {
        let folder = try TemporaryFolder()
        try folder.recordings.prepare()
        let path = folder.recordings.catalogPath.string
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try Catalog(path: path) } }
            try await group.waitForAll()
        }
        #expect(try Catalog(path: path).appliedMigrations() == Self.migrations)
    }
}
