import Foundation
import GestureCore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// Every file under a folder with its contents, to see that nothing changed.
private func snapshot(_ folder: FilePath) throws -> [String: Data] {
    let root = URL(fileURLWithPath: folder.string)
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
    return try Dictionary(
        uniqueKeysWithValues: files.filter { !$0.hasDirectoryPath }.map { ($0.path, try Data(contentsOf: $0)) })
}

@Suite struct AnalysisCommandTests {
    private let mapping = Fixtures.basicMotionsMapping

    @Test func importThenAnalyseWithoutChangingTheRecordings() throws {
        let temporary = try TemporaryFolder()
        let file = Fixtures.basicMotions
        let imported = try runGesture(
            ["import", file, "--map", mapping, "--user", "bm", "--sample-rate", "10", "--gravity-removed"],
            in: temporary.path)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("imported 16 sessions"))
        let before = try snapshot(temporary.path.appending("recordings"))

        let stats = try runGesture(["stats", "--json", "--gesture", "Running"], in: temporary.path)
        #expect(stats.status == 0, "\(stats.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect((object["sessionCounts"] as? [String: [String: Int]])?["Running"]?["bm"] == 4)

        let split = try runGesture(["split", "--by", "session", "--seed", "4", "-o", "split.txt"], in: temporary.path)
        #expect(split.status == 0, "\(split.error)")
        #expect(split.error.contains("warning: the test set shares 1 user with training"))
        let manifest = try Manifest(
            text: String(contentsOfFile: temporary.path.appending("split.txt").string, encoding: .utf8),
            file: "split.txt")
        #expect(manifest.entries.count == 16)

        let plot = try runGesture(
            ["plot", "--manifest", "split.txt", "--part", "test", "--features", "rotX,rotY", "-o", "test.svg"],
            in: temporary.path)
        #expect(plot.status == 0, "\(plot.error)")
        #expect(plot.output.contains("wrote test.svg: 2 panels"))

        #expect(try snapshot(temporary.path.appending("recordings")) == before)
    }

    @Test func plotSaysWhatItLeavesOutRefusesNoPanelsAndTakesEitherEndOfASlice() throws {
        let temporary = try TemporaryFolder()
        let imported = try runGesture(
            ["import", Fixtures.basicMotions, "--map", mapping, "--user", "bm", "--sample-rate", "10"],
            in: temporary.path)
        #expect(imported.status == 0, "\(imported.error)")

        let two = try runGesture(
            ["plot", "--panels", "2", "--features", "accelX,rotX", "-o", "two.svg"], in: temporary.path)
        #expect(two.status == 0, "\(two.error)")
        let note = "2 of 16 sessions drawn; --panels to draw more"
        #expect(two.output == "wrote two.svg: 4 panels of accelX, rotX; \(note)\n")
        let svg = try String(contentsOfFile: temporary.path.appending("two.svg").string, encoding: .utf8)
        #expect(svg.contains(">\(note)</text>"))

        let none = try runGesture(["plot", "--panels", "0", "-o", "none.svg"], in: temporary.path)
        #expect(none.status == 2)
        #expect(none.error == "gesture: --panels 0 is not a number from 1 to 1000\n")
        #expect(!FileManager.default.fileExists(atPath: temporary.path.appending("none.svg").string))

        for (bounds, status) in [(["--to", "50"], 0), (["--from", "50"], 0), (["--from", "50", "--to", "10"], 2)] {
            let slice = try runGesture(["plot"] + bounds + ["-o", "slice.svg"], in: temporary.path)
            #expect(slice.status == status, "\(bounds): \(slice.error)")
        }
        let beyond = try runGesture(["plot", "--from", "1000000", "-o", "slice.svg"], in: temporary.path)
        #expect(beyond.status == 2)
        #expect(beyond.error.hasPrefix("gesture: --from 1000000 must be below --to "))
    }

    @Test func importTakesALongRecordingAsBackground() throws {
        let temporary = try TemporaryFolder()
        let walk = temporary.path.appending("walk.csv").string
        let lines = (0..<500).map { "\(Double($0) / 50),\(sin(Double($0) / 8)),0,1,0,0.5,0" }
        try (["t,x,y,z,gx,gy,gz"] + lines).joined(separator: "\n").write(
            toFile: walk, atomically: true, encoding: .utf8)
        let columns = "time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz"
        let unlabeled = try runGesture(["import", walk, "--user", "ann", "--map", columns], in: temporary.path)
        #expect(unlabeled.status != 0)
        #expect(unlabeled.error.contains("walk.csv has no label column mapped (label=<column>)"), "\(unlabeled.error)")
        #expect(unlabeled.error.hasSuffix("; try --as\n"), "\(unlabeled.error)")

        try runGesture(["import", walk, "--user", "ann", "--as", "other", "--map", columns], in: temporary.path)
            .succeeded()
        let stats = try runGesture(["stats", "--json"], in: temporary.path).succeeded()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect((object["sessionCounts"] as? [String: [String: Int]]) == ["other": ["ann": 1]])
    }

    @Test func importMirrorsTheRowsItIsToldTo() throws {
        let temporary = try TemporaryFolder()
        let file = Fixtures.basicMotions
        let imported = try runGesture(
            [
                "import", file, "--map", mapping, "--user", "bm", "--sample-rate", "10",
                "--mirror", "split=test", "--mirror-axis", "y",
            ], in: temporary.path)
        #expect(imported.status == 0, "\(imported.error)")
        let rows = try String(
            contentsOfFile: temporary.path.appending("recordings/bm-basic-motions-subset.csv").string, encoding: .utf8
        )
        .split(separator: "\n")
        let rawAccelY = try #require(RecordingCSV.columns.firstIndex(of: "rawAccelY"))
        let firstOf = { (take: String) in
            rows.first { $0.hasPrefix("basic-motions-subset:bm:\(take),") }.map {
                Double($0.split(separator: ",")[rawAccelY])!
            }
        }
        // The test cases' y acceleration changes sign, the train cases' does not.
        let source = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let ay = { (take: String) in
            source.first { $0.hasPrefix("\(take),") }.map { Double($0.split(separator: ",")[4])! }
        }
        #expect(firstOf("train_000") == ay("train_000"))
        #expect(firstOf("test_000") == ay("test_000").map { -$0 })

        let bad = try runGesture(
            ["import", file, "--map", mapping, "--user", "bm", "--sample-rate", "10", "--mirror", "left"],
            in: temporary.path)
        #expect(bad.status == 2)
        #expect(bad.error == "gesture: --mirror: 'left' is not <column>=<value>, e.g. side=left\n")
    }

    @Test func badInputIsOneLineAndExitCodeTwo() throws {
        let temporary = try TemporaryFolder()
        let file = Fixtures.basicMotions
        let missing = try runGesture(
            [
                "import", file, "--map", mapping.replacingOccurrences(of: "=case", with: "=subject"), "--user", "bm",
                "--sample-rate", "10",
            ], in: temporary.path)
        #expect(missing.status == 2)
        #expect(
            missing.error == """
                gesture: --map: \(file) has no column 'subject' (mapped to session); its columns are case, split, activity, ax, ay, az, gx, gy, gz

                """)

        _ = try runGesture(
            ["import", file, "--map", mapping, "--user", "bm", "--sample-rate", "10"], in: temporary.path)
        let empty = try runGesture(["stats", "--gesture", "Swimming"], in: temporary.path)
        #expect(empty.status == 2)
        #expect(
            empty.error
                == "gesture: no session left: --gesture Swimming matches none of the 16 sessions selected so far; they have gesture Badminton, Running, Standing, Walking\n"
        )
        let oneUser = try runGesture(["split", "--by", "user", "-o", "s.txt"], in: temporary.path)
        #expect(oneUser.status == 2)
        #expect(
            oneUser.error
                == "gesture: --by user: splitting by user needs at least 2 users, the selection has 1 (bm); record more people; try --by session\n"
        )
        #expect(!FileManager.default.fileExists(atPath: temporary.path.appending("s.txt").string))
    }
}
