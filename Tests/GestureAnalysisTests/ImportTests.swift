import Foundation
import GestureAnalysis
import GestureArchive
import GestureCore
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// The fixtures read plainly, to check the importer against: (session, user, label) per line.
private func plainRows(
    _ file: String, session: Int, user: Int?, label: Int
) throws -> [(session: String, user: String?, label: String)] {
    try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
        let fields = line.split(separator: ",").map(String.init)
        return (fields[session], user.map { fields[$0] }, fields[label])
    }
}

@Suite struct RealDatasetImportTests {
    static let seglearn = Fixtures.seglearnWatch
    static let basicMotions = Fixtures.basicMotions
    static let seglearnMapping = Fixtures.seglearnWatchMapping
    static let basicMotionsMapping = Fixtures.basicMotionsMapping

    @Test func seglearnWatchImportsEachRecordingOfEachSubject() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 50
        let summary = try Importer(
            folder: temporary.recordings, mapping: ColumnMapping(Self.seglearnMapping), options: options
        )
        .run(FilePath(Self.seglearn))
        let plain = try plainRows(Self.seglearn, session: 0, user: 1, label: 3)

        // The fixture's README's figures, and the file's own.
        #expect(summary.sessions.count == 5)
        #expect(Set(plain.map(\.session)).count == 5)
        #expect(summary.users.map(\.rawValue) == ["s01", "s02", "s03", "s07"])
        #expect(summary.rowCount == plain.count)
        #expect(summary.sessions.allSatisfy { $0.sampleCount == 250 })
        #expect(summary.sessions.allSatisfy { $0.device == "import:seglearn-watch-subset.csv" && $0.status == .kept })
        #expect(Set(summary.sessions.map(\.gesture.rawValue)) == ["PEN", "TRAP", "ABD", "FEL", "IR"])

        let dataset = try DatasetLoader(folder: temporary.recordings).load()
        #expect(dataset.sessions.count == 5)
        #expect(dataset.rowCount == plain.count)
        let first = try #require(dataset.session(SessionID(rawValue: "seglearn-watch-subset:s07:rec000")))
        #expect(first.rows.count == plain.filter { $0.session == "rec000" }.count)
        #expect(first.rows.map(\.timestamp) == first.rows.indices.map { Double($0) / 50 })
        // Gravity is a unit vector and gravity + user acceleration is the raw reading.
        for row in first.rows {
            #expect(abs((row.motion.gravity * row.motion.gravity).sum() - 1) < 1e-9)
            let sum = row.motion.gravity + row.motion.userAcceleration - row.rawAcceleration
            #expect((sum * sum).sum() < 1e-20)
        }
        #expect(first.rows[0].rawAcceleration == Vector3(-1.083608, -0.018608999999999983, -0.027259999999999954))
        #expect(try Archive(folder: temporary.recordings).check().isConsistent)
    }

    @Test func basicMotionsImportsEachCaseWithGravityRemoved() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 10
        options.user = "bm"
        options.gravityRemoved = true
        let summary = try Importer(
            folder: temporary.recordings, mapping: ColumnMapping(Self.basicMotionsMapping), options: options
        )
        .run(FilePath(Self.basicMotions))
        let plain = try plainRows(Self.basicMotions, session: 0, user: nil, label: 2)

        #expect(summary.sessions.count == 16)
        #expect(summary.sessions.filter { $0.id.rawValue.contains(":train_") }.count == 8)
        #expect(summary.sessions.filter { $0.id.rawValue.contains(":test_") }.count == 8)
        #expect(summary.sessions.allSatisfy { $0.sampleCount == 100 })
        #expect(summary.rowCount == plain.count)
        #expect(Set(summary.sessions.map(\.gesture.rawValue)) == ["Standing", "Running", "Walking", "Badminton"])

        // The measured acceleration is the user acceleration; gravity comes from the gyroscope alone.
        let dataset = try DatasetLoader(folder: temporary.recordings).load()
        let session = try #require(dataset.session(SessionID(rawValue: "basic-motions-subset:bm:train_000")))
        #expect(session.rows[0].motion.userAcceleration == Vector3(0.079106, 0.394032, 0.551444))
        #expect(session.rows[0].motion.gravity == Vector3(0, 0, 1))
        #expect(session.rows.allSatisfy { $0.motion.userAcceleration == $0.rawAcceleration })
    }

    @Test func importingTheSameFileAgainFindsItCompleteAndChangesNothing() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 10
        options.user = "bm"
        let importer = Importer(
            folder: temporary.recordings, mapping: try ColumnMapping(Self.basicMotionsMapping), options: options)
        let first = try importer.run(FilePath(Self.basicMotions))
        #expect(!first.wasComplete)
        let file = temporary.recordings.root.appending("bm-basic-motions-subset.csv").string
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let catalog = try Catalog(path: temporary.recordings.catalogPath.string)
        let records = try catalog.sessions()
        let again = try importer.run(FilePath(Self.basicMotions))
        #expect(again.wasComplete)
        #expect(again.sessions == first.sessions)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == before)
        #expect(try catalog.sessions() == records)
    }

    @Test func aFileOfTheSameNameWithOtherRowsIsNotOverwritten() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 10
        options.user = "bm"
        try temporary.recordings.prepare()
        let file = temporary.recordings.root.appending("bm-basic-motions-subset.csv").string
        try "someone else's\n".write(toFile: file, atomically: true, encoding: .utf8)
        let importer = Importer(
            folder: temporary.recordings, mapping: try ColumnMapping(Self.basicMotionsMapping), options: options)
        let error = try #require(throws: AnalysisError.self) { try importer.run(FilePath(Self.basicMotions)) }
        #expect(error.description.contains("exists and holds other rows"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "someone else's\n")
        #expect(try Catalog(path: temporary.recordings.catalogPath.string).sessions().isEmpty)
    }
}

@Suite struct ImportMappingTests {
    private func write(_ text: String, in folder: TemporaryFolder) throws -> FilePath {
        let path = folder.path.appending("other-tool.csv")
        try text.write(toFile: path.string, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMappedColumnTheFileLacksListsTheColumnsThereAre() throws {
        let temporary = try TemporaryFolder()
        let path = try write("who,take,what,t,x,y,z,gx,gy,gz\n", in: temporary)
        let mapping = try ColumnMapping(
            "user=subject,session=take,label=what,time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: mapping, options: ImportOptions()).run(path)
        }
        #expect(error.description.contains("no column 'subject'"))
        #expect(error.description.contains("its columns are who, take, what, t, x, y, z, gx, gy, gz"))
        #expect(!FileManager.default.fileExists(atPath: temporary.recordings.root.string))
    }

    @Test func aFileSeparatedBySemicolonsGetsAHint() throws {
        let temporary = try TemporaryFolder()
        let path = try write("who;take;what;t;x;y;z;gx;gy;gz\nann;1;wave;0;0,1;0;1;0;0;0\n", in: temporary)
        let mapping = try ColumnMapping(
            "user=who,session=take,label=what,time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: mapping, options: ImportOptions()).run(path)
        }
        #expect(
            error.description.hasSuffix(
                "the header looks separated by ';', and import reads commas only: convert the file to commas"))
        #expect(!FileManager.default.fileExists(atPath: temporary.recordings.root.string))
    }

    @Test func unitsAreConvertedAndTimeColumnsUsed() throws {
        let temporary = try TemporaryFolder()
        let path = try write(
            """
            who,take,what,t,x,y,z,gx,gy,gz
            ann,1,wave,10.0,0,0,9.80665,90,0,0
            ann,1,wave,10.5,0,0,9.80665,0,180,0
            """, in: temporary)
        var options = ImportOptions()
        options.accelerationUnit = .metersPerSecondSquared
        options.rotationUnit = .degreesPerSecond
        let mapping = try ColumnMapping(
            "user=who,session=take,label=what,time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        _ = try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        let rows = try #require(try DatasetLoader(folder: temporary.recordings).load().sessions.first).rows
        #expect(rows.map(\.timestamp) == [0, 0.5])
        #expect(rows[0].rawAcceleration == Vector3(0, 0, 1))
        #expect(rows[0].rawRotationRate == Vector3(.pi / 2, 0, 0))
        #expect(rows[1].rawRotationRate == Vector3(0, .pi, 0))
    }

    @Test func aLabelThatIsNotUTF8IsRefusedWithItsLine() throws {
        let temporary = try TemporaryFolder()
        let path = temporary.path.appending("latin1.csv")
        let text =
            Array("case,label,x,y,z,gx,gy,gz\nc1,wave,0,0,1,0,0,0\nc1,".utf8) + [0x77, 0xE9]
            + Array(",0,0,1,0,0,0\n".utf8)
        try Data(text).write(to: URL(fileURLWithPath: path.string))
        var options = ImportOptions()
        options.sampleRate = 50
        options.user = "ann"
        let mapping = try ColumnMapping(
            "session=case,label=label,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        }
        #expect(error.description == "\(path):3: the line is not UTF-8 text")
        #expect(try temporary.recordings.csvFiles(in: temporary.recordings.root).isEmpty)
    }

    @Test func aByteOrderMarkBeforeTheHeaderIsAccepted() throws {
        let temporary = try TemporaryFolder()
        let path = try write("\u{FEFF}case,x,y,z,gx,gy,gz\nc1,0,0,1,0,0,0\nc1,0,0,1,0,0,0\n", in: temporary)
        var options = ImportOptions()
        options.sampleRate = 50
        options.user = "ann"
        let mapping = try ColumnMapping(
            "session=case,label=case,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let summary = try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        #expect(summary.rowCount == 2)
    }

    @Test(arguments: [
        ("ann,1,wave,0,zero,1,0,0,0", "accelY 'zero' is not a finite number"),
        ("ann,1,wave,0,0,1,0,nan,0", "gyroY 'nan' is not a finite number"),
        ("ann,1\u{0}2,wave,0,0,1,0,0,0", "the session '1\\02' holds a control character"),
        ("ann,1,wave,0,0,1" + String(repeating: "0", count: 70) + "\u{0}5,0,0,0", "is not a finite number"),
    ])
    func aMalformedLineNamesFileAndLine(line: String, message: String) throws {
        let temporary = try TemporaryFolder()
        let path = try write("who,take,what,x,y,z,gx,gy,gz\nann,1,wave,0,0,1,0,0,0\n\(line)\n", in: temporary)
        var options = ImportOptions()
        options.sampleRate = 50
        let mapping = try ColumnMapping(
            "user=who,session=take,label=what,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        }
        #expect(error.description.hasPrefix("\(path):3: "))
        #expect(error.description.contains(message))
    }

    @Test func aFileWithoutSessionAndLabelColumnsIsOneSessionOfTheGivenLabel() throws {
        let temporary = try TemporaryFolder()
        let path = temporary.path.appending("walk.csv")
        let lines = (0..<120).map { "\(Double($0) / 50),0.1,0,1,0,0.5,0" }
        try (["t,x,y,z,gx,gy,gz"] + lines).joined(separator: "\n").write(
            toFile: path.string, atomically: true, encoding: .utf8)
        var options = ImportOptions()
        options.user = "ann"
        options.label = .other
        let mapping = try ColumnMapping("time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let summary = try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        #expect(summary.sessions.map(\.id.rawValue) == ["walk:ann:walk"])
        #expect(summary.sessions.map(\.gesture) == [.other] && summary.rowCount == 120)
        let session = try #require(try DatasetLoader(folder: temporary.recordings).load().sessions.first)
        #expect(session.rows.count == 120 && session.rows.allSatisfy { $0.activity == .other })
    }

    @Test func aFileWithoutALabelColumnNeedsALabel() throws {
        let temporary = try TemporaryFolder()
        let path = try write("t,x,y,z,gx,gy,gz\n0,0,0,1,0,0,0\n", in: temporary)
        var options = ImportOptions()
        options.user = "ann"
        let mapping = try ColumnMapping("time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: mapping, options: options).run(path)
        }
        #expect(error.description.hasPrefix("other-tool.csv has no label column mapped (label=<column>)"))
        #expect(error.remedy == .label)
        #expect(!FileManager.default.fileExists(atPath: temporary.recordings.root.string))
    }

    @Test func aMappingWithoutTheRequiredFieldsSaysWhichAreMissing() {
        let error = #expect(throws: AnalysisError.self) { try ColumnMapping("user=a,session=b,label=c") }
        #expect(error?.description.contains("accelX, accelY, accelZ, gyroX, gyroY, gyroZ") == true)
    }
}

@Suite struct ImportMirrorTests {
    /// One movement recorded twice, as session 1 on the left wrist and session 2 on the right,
    /// with the same numbers: a turn about every axis and a little acceleration.
    private func sameMovementOnBothSides(in folder: TemporaryFolder) throws -> FilePath {
        let lines = (0..<100).map { k -> String in
            let t = Double(k) / 50
            let reading = [
                0.3 + 0.2 * sin(3 * t), 0.5 * cos(2 * t), 0.8 + 0.1 * sin(5 * t), 1.5 * sin(4 * t), 0.7 * cos(3 * t),
                0.9 * sin(2 * t),
            ]
            let numbers = reading.map { String($0) }.joined(separator: ",")
            return "ann,1,left,wave,\(numbers)\nann,2,right,wave,\(numbers)"
        }
        let path = folder.path.appending("watch.csv")
        try (["who,take,side,what,x,y,z,gx,gy,gz"] + lines).joined(separator: "\n").write(
            toFile: path.string, atomically: true, encoding: .utf8)
        return path
    }

    private let mapping = "user=who,session=take,label=what,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz"

    @Test func rowsOfTheMirroredSideAreTheMirrorImageOfTheOthers() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 50
        let mirroring = Mirroring(across: .x)
        options.mirror = try MirrorRule("side=left", mirroring: mirroring)
        _ = try Importer(folder: temporary.recordings, mapping: ColumnMapping(mapping), options: options)
            .run(sameMovementOnBothSides(in: temporary))
        let dataset = try DatasetLoader(folder: temporary.recordings).load()
        let left = try #require(dataset.session(SessionID(rawValue: "watch:ann:1"))).rows
        let right = try #require(dataset.session(SessionID(rawValue: "watch:ann:2"))).rows

        #expect(left.count == 100)
        // Raw readings: the x acceleration and the y and z rotation rates change sign.
        #expect(
            left[1].rawAcceleration
                == Vector3(-right[1].rawAcceleration.x, right[1].rawAcceleration.y, right[1].rawAcceleration.z))
        #expect(
            left[1].rawRotationRate
                == Vector3(right[1].rawRotationRate.x, -right[1].rawRotationRate.y, -right[1].rawRotationRate.z))
        // The attitude filter is equivariant: fusing the mirrored readings gives the mirrored motion.
        for (mirrored, original) in zip(left, right) {
            let expected = mirroring.motion(original.motion)
            #expect(zip(mirrored.motion.values, expected.values).allSatisfy { abs($0 - $1) < 1e-9 })
        }
    }

    @Test func aMirrorColumnTheFileLacksListsTheColumnsThereAre() throws {
        let temporary = try TemporaryFolder()
        var options = ImportOptions()
        options.sampleRate = 50
        options.mirror = try MirrorRule("wrist=left", mirroring: Mirroring(across: .x))
        let error = try #require(throws: AnalysisError.self) {
            try Importer(folder: temporary.recordings, mapping: ColumnMapping(mapping), options: options)
                .run(sameMovementOnBothSides(in: temporary))
        }
        #expect(
            error.description.contains(
                "the rows to mirror are where wrist=left, but watch.csv has no column 'wrist'; its columns are who, take, side, what"
            ))
        #expect(error.setting == .mirror)
    }

    @Test func aMirrorConditionIsAColumnAndAValue() {
        for condition in ["side", "side=", "=left"] {
            let error = #expect(throws: AnalysisError.self) {
                try MirrorRule(condition, mirroring: Mirroring(across: .x))
            }
            #expect(error?.description.contains("is not <column>=<value>") == true)
        }
    }
}
