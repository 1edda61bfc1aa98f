import Foundation
import GRDB
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

@Suite struct CatalogTests {
    @Test func aNewCatalogHasEveryMigration() throws {
        let folder = try TemporaryFolder()
        let catalog = try Catalog(path: folder.path.appending("catalog.sqlite").string)
        #expect(
            try catalog.appliedMigrations() == ["v1: sessions", "v2: session history", "v3: device rate", "v4: labels"])
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
            try catalog.appliedMigrations() == ["v1: sessions", "v2: session history", "v3: device rate", "v4: labels"])
        #expect(try catalog.sessions().map(\.sampleCount) == [42])
        #expect(try catalog.sessions().map(\.deviceRate) == [100])
        let session = SessionID(rawValue: "s-1")
        #expect(try catalog.sessions().map(\.user) == [try UserID("bob")])
        try catalog.setStatus([StatusChange(session, .discarded, reason: "test")])
        #expect(try catalog.history(of: session).map(\.action) == ["discarded"])
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
        #expect(try Catalog(path: path).appliedMigrations().count == 4)
    }
}
