import Foundation
import GestureCore
import Testing

@testable import GestureLearning

@Suite struct ModelFileTests {
    @Test func saveAndLoadGiveBitIdenticalPredictions() throws {
        let model = try trainSmallModel()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("model-\(UUID()).gesturemodel").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try model.write(to: path)
        let loaded = try GestureModel(contentsOf: path)
        #expect(loaded == model)
        #expect(loaded.predict(smallSessions) == model.predict(smallSessions))
        #expect(loaded.featureNames == ["a", "b", "c"] && loaded.classNames == ["rest", "shake"])
        #expect(loaded.windowing == Windowing(window: 10) && loaded.samplingRate == 25)
    }

    @Test func theTrainingRecordRoundTripsThroughTheFile() throws {
        let model = try trainSmallModel(epochs: 1)
        let record = try #require(model.trainingRecord)
        #expect(record.trainingSessions == smallSessions.map(\.session).sorted())
        #expect(record.validationSessions == smallSessions.prefix(2).map(\.session).sorted())
        #expect(record.trainingUsers == Set(smallSessions.map(\.user)).sorted())
        let loaded = try GestureModel(serialized: model.serialized())
        #expect(loaded.trainingRecord == record)
    }

    /// Files written before models recorded their training have no such field in their header.
    @Test func aFileWithoutATrainingRecordStillLoads() throws {
        var model = try trainSmallModel(epochs: 1)
        model.trainingRecord = nil
        let bytes = model.serialized()
        #expect(!String(decoding: bytes, as: UTF8.self).contains("trainingRecord"))
        let loaded = try GestureModel(serialized: bytes)
        #expect(loaded.trainingRecord == nil)
        #expect(loaded.predict(smallSessions) == model.predict(smallSessions))
    }

    /// Files written before temporal convolutions could be stacked do not say how many: one.
    @Test func aTemporalFileWithoutItsLayersHoldsOne() throws {
        var layers = LayerSizes(convolutionFilters: 4, lstmUnits: 3, denseUnits: 4, temporalFilters: 2)
        layers.temporalKernel = 3
        let model = GestureModel(
            untrained: ModelDescription(
                featureNames: ["a", "b"], windowing: Windowing(window: 6), samplingRate: 25,
                classNames: ["rest", "shake"], layers: layers),
            normalization: FeatureNormalization(mean: [0, 0], deviation: [1, 1]), seed: 3)
        var bytes = model.serialized()
        let lengthAt = GestureModel.magic.count + 4
        let headerLength = bytes[lengthAt..<lengthAt + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        let header = String(decoding: bytes[lengthAt + 4..<lengthAt + 4 + headerLength], as: UTF8.self)
        let old = header.replacingOccurrences(of: #","layers":1"#, with: "")
            .replacingOccurrences(of: #""layers":1,"#, with: "")
        #expect(old.count < header.count)
        bytes.replaceSubrange(lengthAt + 4..<lengthAt + 4 + headerLength, with: Array(old.utf8))
        bytes.replaceSubrange(
            lengthAt..<lengthAt + 4, with: withUnsafeBytes(of: UInt32(old.utf8.count).littleEndian, Array.init))
        let checksum = fnv1a(bytes.dropLast(8))
        bytes.replaceSubrange(
            bytes.count - 8..<bytes.count, with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        let loaded = try GestureModel(serialized: bytes)
        #expect(loaded.architecture.temporal?.layers == 1)
        #expect(loaded == model)
    }

    /// An augmented copy is the session it was made from, so a test on that session is no test.
    @Test func theRecordCountsACopyAsItsRecording() throws {
        let recorded = try sequence([0, 0, 1], session: 1, user: "ann")
        var copy = recorded
        copy.session = SessionID(rawValue: "\(recorded.session) mirrored")
        copy.copyOf = recorded.session
        let validation = try sequence([1, 1, 0], session: 2, user: "bob")
        let record = TrainingRecord(
            training: [recorded, copy], validation: [validation], windowing: Windowing(window: 1), classCount: 2)
        #expect(record.trainingSessions == [recorded.session] && record.trainingUsers == [recorded.user])
        #expect(record.validationSessions == [validation.session] && record.validationUsers == [validation.user])
        #expect(record.trainedOn([validation, copy]) == [copy])
        #expect(record.trainingUsers(among: [validation]).isEmpty)
        #expect(record.classShares == [4.0 / 6, 2.0 / 6])
    }

    @Test func damagedFilesAreClearErrors() throws {
        let bytes = try trainSmallModel(epochs: 1).serialized()
        func loadError(_ bytes: [UInt8]) -> String? {
            do {
                _ = try GestureModel(serialized: bytes)
                return nil
            } catch {
                return error.description
            }
        }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x10
        #expect(loadError(flipped)?.contains("checksum") == true)
        #expect(loadError(Array(bytes.dropLast(100)))?.contains("checksum") == true)
        #expect(loadError(Array(bytes.prefix(20)))?.contains("truncated") == true)
        #expect(loadError([])?.contains("not a GestureLab model") == true)
        #expect(loadError(Array("a,b,c\n1,2,3\n".utf8))?.contains("not a GestureLab model") == true)
        var newer = bytes
        newer[GestureModel.magic.count] = 9
        #expect(loadError(newer)?.contains("format 9") == true)
    }

    /// A file whose checksum is right but whose header disagrees with its weights.
    @Test func inconsistentFilesAreClearErrors() throws {
        let model = try trainSmallModel(epochs: 1)
        var extraFeature = model
        extraFeature.featureNames.append("d")
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: extraFeature.serialized()) }
        var missingWeights = model
        missingWeights.parameters.removeLast()
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: missingWeights.serialized()) }
        var notANumber = model
        notANumber.parameters[5] = .nan
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: notANumber.serialized()) }
    }

    /// Header values that would crash detection or ask for gigabytes, behind a checksum that matches.
    @Test func impossibleHeaderValuesAreErrors() throws {
        let model = try trainSmallModel(epochs: 1)
        var slow = model
        slow.samplingRate = 1e-300
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: slow.serialized()) }
        var huge = model
        huge.windowing.windowsPerChunk = 100_000_000
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: huge.serialized()) }
    }

    /// A float count no file could hold, behind a checksum that matches: an error, not a crash.
    @Test func impossibleCountsAreErrors() throws {
        var bytes = try trainSmallModel(epochs: 1).serialized()
        let lengthAt = GestureModel.magic.count + 4
        let headerLength = bytes[lengthAt..<lengthAt + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
        let countAt = lengthAt + 4 + headerLength
        bytes.replaceSubrange(countAt..<countAt + 8, with: repeatElement(0xff, count: 8))
        let checksum = fnv1a(bytes.dropLast(8))
        bytes.replaceSubrange(
            bytes.count - 8..<bytes.count, with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        #expect(throws: ModelFileError(description: "the model file is truncated")) {
            try GestureModel(serialized: bytes)
        }
    }

    @Test func missingFileIsAnError() {
        #expect(throws: ModelFileError.self) { try GestureModel(contentsOf: "/nonexistent/model") }
    }
}

@Suite struct EvaluationTests {
    @Test func figuresFromKnownPredictions() throws {
        let sessions = [try sequence([0, 0, 1, 1], user: "ann"), try sequence([2, 2, 2], session: 1, user: "bob")]
        let evaluation = Evaluation(
            classNames: ["a", "b", "c"], sequences: sessions,
            targets: [[0, 0, 1, 1], [2, 2, 2]], predictions: [[0, 1, 1, 1], [2, 0, 2]])
        #expect(evaluation.confusion == [[1, 1, 0], [0, 2, 0], [1, 0, 2]])
        #expect(abs(evaluation.accuracy - 5.0 / 7) < 1e-12)
        #expect(evaluation.classes.map(\.precision) == [0.5, 2.0 / 3, 1])
        #expect(evaluation.classes.map(\.recall) == [0.5, 1, 2.0 / 3])
        #expect(evaluation.classes.map(\.support) == [2, 2, 3])
        #expect(zip(evaluation.classes.map(\.f1), [0.5, 0.8, 0.8]).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(abs(evaluation.macroF1 - 0.7) < 1e-12)
        // Session 0's targets tie between a and b: a; its a windows' predictions tie between a and b: a.
        #expect(evaluation.sessions.map(\.gesture) == ["a", "c"])
        #expect(evaluation.sessions.map(\.predictedGesture) == ["a", "c"])
        #expect(evaluation.sessions.map(\.gestureWindowsRight) == [1, 2])
        #expect(evaluation.sessions.map(\.gestureWindows) == [2, 3])
        #expect(evaluation.sessions.map(\.predictions) == [["a": 1, "b": 3, "c": 0], ["a": 1, "b": 0, "c": 2]])
        #expect(evaluation.sessionAccuracy == 1)
        #expect(evaluation.users.map(\.user.rawValue) == ["ann", "bob"])
        #expect(evaluation.users.map(\.accuracy) == [0.75, 2.0 / 3])
    }

    @Test func evaluatesAModelOnEveryWindow() throws {
        let model = try trainSmallModel(epochs: 6)
        let evaluation = Evaluation(model: model, sequences: smallSessions)
        #expect(evaluation.confusion.joined().reduce(0, +) == 80)
        #expect(evaluation.sessions.count == 8)
        #expect(evaluation.accuracy > 0.5)
    }
}
