import Foundation
import GestureAnalysis
import GestureCore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

@Suite struct LoadingTests {
    @Test func aFolderLoadsIntoSessionsWithUsersFromFileNamesAndRowsInOrder() throws {
        let temporary = try TemporaryFolder()
        let sessions = try syntheticDataset()
        for user in ["ann", "bob", "cy"] {
            try writeRecording(
                sessions.filter { $0.user.rawValue == user }.flatMap(\.rows),
                to: temporary.recordings.root.appending("\(user)-recordings.csv"))
        }
        let dataset = try DatasetLoader(folder: temporary.recordings).load()
        #expect(dataset.sessions.map(\.id) == sessions.map(\.id))
        #expect(dataset.users.map(\.rawValue) == ["ann", "bob", "cy"])
        #expect(dataset.gestures.map(\.rawValue) == ["twist", "wave"])
        for (loaded, written) in zip(dataset.sessions, sessions) {
            #expect(loaded.rows == written.rows)
            #expect(loaded.user == written.user)
        }
        #expect(!FileManager.default.fileExists(atPath: temporary.recordings.catalogPath.string))
    }

    @Test func theBooksHeaderlessFormatLoadsOutsideTheCatalog() throws {
        let temporary = try TemporaryFolder()
        try temporary.recordings.prepare()
        let features = "0.1,0.2,0.3,0.01,0.02,0.03,0,0.6,0.8,0.001,0.002,0.003"
        let lines = ["a-1,0,\(features)", "a-1,1,\(features)", "b-1,3,\(features)", "a-1,0,\(features)"]
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: temporary.recordings.root.appending("zoe-book.csv").string,
            atomically: true, encoding: .utf8)
        let dataset = try DatasetLoader(folder: temporary.recordings).load()
        #expect(dataset.sessions.map(\.id.rawValue) == ["a-1", "b-1"])
        #expect(dataset.sessions.map(\.gesture) == [.drive, .chop])
        #expect(dataset.sessions[0].rows.map(\.timestamp) == [0, 0.04, 0.08])
        #expect(dataset.users.map(\.rawValue) == ["zoe"])
    }

    @Test func aMalformedFileNamesFileAndLine() throws {
        let temporary = try TemporaryFolder()
        let rows = try syntheticSession("s-1", user: "ann", gesture: "wave", motion: wave).rows
        let path = temporary.recordings.root.appending("ann-recordings.csv")
        try writeRecording(rows, to: path)
        var lines = try String(contentsOfFile: path.string, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[4] = lines[4].replacingOccurrences(of: ",rest,", with: ",rest,oops,")
        try lines.joined(separator: "\n").write(toFile: path.string, atomically: true, encoding: .utf8)
        let error = try #require(throws: AnalysisError.self) { try DatasetLoader(folder: temporary.recordings).load() }
        #expect(error.description.hasPrefix("\(path):5: expected 21 fields, found 22"))
    }

    @Test func anEmptySelectionSaysWhichFilterRemovedEverything() throws {
        let dataset = Dataset(sessions: try syntheticDataset())
        let error = try #require(throws: AnalysisError.self) {
            try SessionSelection(gestures: [ActivityLabel("wave")], users: [UserID("dora")]).apply(to: dataset)
        }
        #expect(error.description.contains("--user dora matches none of the 12 sessions"))
        #expect(error.description.contains("ann, bob, cy"))
        let selected = try SessionSelection(gestures: [ActivityLabel("wave")], users: [UserID("bob")]).apply(
            to: dataset)
        #expect(selected.sessions.map(\.id.rawValue) == (1...4).map { "bob-wave-\($0)" })
    }

    @Test func downsamplingFrom80To40HzKeepsEverySecondRow() throws {
        let session = try syntheticSession("s-1", user: "ann", gesture: "wave", motion: wave, rate: 80)
        let halved = try Dataset(sessions: [session]).downsampled(to: 40).sessions[0]
        #expect(halved.rows == stride(from: 0, to: session.rows.count, by: 2).map { session.rows[$0] })
        #expect(abs(halved.nominalRate - 40) < 1e-9)
        let error = #expect(throws: AnalysisError.self) { try Dataset(sessions: [session]).downsampled(to: 100) }
        #expect(error?.description.contains("cannot add samples") == true)
    }
}
