import ArgumentParser
import Foundation
import GestureArchive
import GestureCore
import GestureInterop
import GestureSensors
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

@testable import GestureAnalysis
@testable import GestureCommandLine
@testable import GestureLearning
@testable import GestureStudio
@testable import gesture

/// Mutated inputs for every format GestureLab reads from a user, from the seeds in
/// Tests/Fixtures/fuzz and devices/: each must be read, or refused with the parser's own error;
/// never a crash. What is read must also say the same when written back and read again.
/// `GESTURE_FUZZ_INPUTS` sets how many inputs per format (10,000 unless set).
@Suite struct FuzzTests {
    static let inputs = ProcessInfo.processInfo.environment["GESTURE_FUZZ_INPUTS"].flatMap(Int.init) ?? 10_000

    private func seeds(_ names: [String]) throws -> [[UInt8]] {
        try names.map { Array(try Data(contentsOf: URL(fileURLWithPath: Repository.path($0)))) }
    }

    /// Runs `body` on `inputs` mutations of the seeds; returns how many it read and how many it refused.
    private func fuzz(
        _ format: String, seeds: [[UInt8]], _ body: ([UInt8]) throws -> Bool
    ) rethrows -> (read: Int, refused: Int) {
        var mutator = Mutator(seed: 1, format: format)
        var read = 0
        for index in 0..<Self.inputs {
            if try body(mutator.mutate(seeds[index % seeds.count])) { read += 1 }
        }
        print("fuzz \(format): \(Self.inputs) inputs, \(read) read, \(Self.inputs - read) refused, none crashed")
        return (read, Self.inputs - read)
    }

    @Test func recordingCSV() throws {
        let counts = try fuzz("recording", seeds: seeds(["Tests/Fixtures/fuzz/recording.csv"])) {
            (bytes: [UInt8]) throws -> Bool in
            guard let rows = try? RecordingCSV.rows(in: String(decoding: bytes, as: UTF8.self), file: "f.csv") else {
                return false
            }
            let lines = rows.map(RecordingCSV.line(for:))
            let again = try RecordingCSV.rows(in: ([RecordingCSV.header] + lines).joined(separator: "\n"), file: "f")
            #expect(again.map(RecordingCSV.line(for:)) == lines)
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    @Test func manifest() throws {
        let counts = try fuzz("manifest", seeds: seeds(["Tests/Fixtures/fuzz/manifest.txt"])) {
            (bytes: [UInt8]) throws -> Bool in
            guard let manifest = try? Manifest(text: String(decoding: bytes, as: UTF8.self), file: "m") else {
                return false
            }
            let again = try Manifest(text: manifest.text, file: "again")
            #expect(
                again == manifest,
                "\(String(decoding: bytes, as: UTF8.self).debugDescription) read as \(manifest), again as \(again)")
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    @Test func deviceProfile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Repository.path("devices"))
            .filter { $0.hasSuffix(".profile") }.sorted().map { "devices/\($0)" }
        let sample = RawSample(time: 1, acceleration: [0.1, -0.2, 1], rotationRate: [1, 2, 3])
        let counts = try fuzz("profile", seeds: try seeds(names)) { (bytes: [UInt8]) throws -> Bool in
            guard let profile = try? DeviceProfile(text: String(decoding: bytes, as: UTF8.self), file: "p") else {
                return false
            }
            let applied = profile.apply(sample, mounting: true)
            #expect((0..<3).allSatisfy { applied.acceleration[$0].isFinite && applied.rotationRate[$0].isFinite })
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    @Test func longFormatImport() throws {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("other.csv")
        let mapping = try ColumnMapping(
            "user=who,session=take,label=what,time=t,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz")
        let counts = try fuzz("long format", seeds: seeds(["Tests/Fixtures/fuzz/long-format.csv"])) {
            (bytes: [UInt8]) throws -> Bool in
            try Data(bytes).write(to: URL(fileURLWithPath: path.string))
            guard let file = try? LongFormatFile(path: path, mapping: mapping, options: ImportOptions()) else {
                return false
            }
            for session in file.sessions {
                #expect(session.samples.count == session.labels.count)
                #expect(!session.key.isEmpty)
                #expect(session.samples.allSatisfy { $0.time.isFinite })
            }
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    /// A small model made here (a trained one is a megabyte of weights, and slow to mutate ten
    /// thousand times); its layers are few units wide, its header like any other's.
    private func smallModel() -> GestureModel {
        var architecture = Architecture(windowSize: 10, classes: 2)
        architecture.convolutionFilters = 4
        architecture.lstmUnits = 4
        architecture.denseUnits = 4
        let layout = Network(architecture).layout
        var parameters = (0..<layout.parameterCount).map { Float($0 % 7) / 7 - 0.5 }
        let variance = layout.batchNorm.runningVariance
        parameters.replaceSubrange(variance, with: repeatElement(1, count: variance.count))
        return GestureModel(
            featureNames: ["rotX", "rotY"], windowing: Windowing(window: 5), samplingRate: 25,
            classNames: ["rest", "shake"], normalization: FeatureNormalization(mean: [0, 0], deviation: [1, 1]),
            architecture: architecture, parameters: parameters)
    }

    /// Half the mutations get a checksum that matches, so that they reach the header and the weights.
    @Test func modelFile() throws {
        let counts = try fuzz("model", seeds: [smallModel().serialized()]) { (bytes: [UInt8]) throws -> Bool in
            var bytes = bytes
            if bytes.count > 8, bytes.count.isMultiple(of: 2) {
                let checksum = fnv1a(bytes.dropLast(8))
                bytes.replaceSubrange(
                    bytes.count - 8..<bytes.count, with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
            }
            guard let model = try? GestureModel(serialized: bytes) else { return false }
            #expect(try GestureModel(serialized: model.serialized()) == model)
            return true
        }
        #expect(counts.refused > 0)
    }

    /// Mutated Core ML exports: what imports must be a model GestureLab's own file format accepts.
    @Test func coreMLImport() throws {
        let seed = try CoreMLExport(model: smallModel()).serialized()
        let counts = try fuzz("core ml", seeds: [seed]) { (bytes: [UInt8]) throws -> Bool in
            guard let imported = try? CoreMLImport(serialized: bytes, rate: 25) else { return false }
            #expect(try GestureModel(serialized: imported.model.serialized()) == imported.model)
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    /// What the phone's page sends over the WebSocket: what is read holds seven finite numbers a
    /// reading, in time order.
    @Test func phoneMessages() throws {
        let seeds = [
            #"{"source": "generic-sensor"}"#,
            #"{"readings": [[0.5, 0.1, -0.2, 9.8, 0.01, 0.02, 0.03], [0.52, 0.1, -0.2, 9.7, 0.0, 0.0, 0.1]]}"#,
        ].map { Array($0.utf8) }
        let counts = fuzz("phone message", seeds: seeds) { bytes in
            guard let message = try? PhoneMessage(parsing: String(decoding: bytes, as: UTF8.self)) else { return false }
            let readings = message.readings ?? []
            #expect(readings.allSatisfy { $0.count == 7 && $0.allSatisfy(\.isFinite) })
            #expect(zip(readings, readings.dropFirst()).allSatisfy { $0[0] <= $1[0] })
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }

    /// What the studio's page posts to change a session, applied to a real one when it decodes:
    /// applied or refused, the folder keeps every row and stays consistent with its catalog.
    @Test func studioChanges() throws {
        let folder = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "chop", "--takes", "1", "--rate", "10",
                "--fast", "--quiet", "--keep",
            ],
            in: folder.path
        ).succeeded()
        let id = try Catalog(path: folder.recordings.catalogPath.string).sessions()[0].id.rawValue
        let lines = try recordingLines(in: folder.recordings).values.reduce(0, +)
        let recordings = StudioRecordings(folder: folder.recordings, rules: CleaningRules())
        let seeds = [
            #"{"relabel": {"from": 1.5, "to": 2.25, "label": "wave"}}"#, #"{"trim": {"from": 0.5, "to": 9}}"#,
            #"{"undo": {}}"#, #"{"discard": {}}"#, #"{"restore": {}}"#,
        ].map { Array($0.utf8) }
        var applied = 0
        let counts = fuzz("studio change", seeds: seeds) { bytes in
            guard let change = try? JSONDecoder().decode(StudioRecordings.Change.self, from: Data(bytes)) else {
                return false
            }
            if (try? recordings.apply(change, to: id)) != nil { applied += 1 }
            return true
        }
        print("fuzz studio change: \(applied) applied")
        #expect(counts.read > 0 && counts.refused > 0 && applied > 0)
        #expect(try recordingLines(in: folder.recordings).values.reduce(0, +) == lines)
        #expect(try Archive(folder: folder.recordings).check().isConsistent)
    }
}

/// Every numeric option given mutated numbers: what its type's parser (ArgumentParser's) reads is
/// refused by the command's check with a one-line usage error naming the option, or is finite.
/// The command is parsed once, then each number set on it as ArgumentParser would set it.
extension FuzzTests {
    struct NumericOption: CustomTestStringConvertible, Sendable {
        var testDescription: String
        var seeds: [String]
        /// Parses the command; the function it gives sets the option to a text's number and checks
        /// the command's numbers (nil: the text is not a number of the option's type).
        var command: @Sendable () throws -> (String) throws -> Void?
        /// Whether infinity is taken, as "until Ctrl-C".
        var untilStopped: Bool

        var name: String { String(testDescription.split(separator: " ").last!) }

        init<Command: ParsableArguments, Value: ExpressibleByArgument>(
            _ name: String, of arguments: [String], _ seeds: [String],
            set: @escaping @Sendable (inout Command, Value) -> Void,
            check: @escaping @Sendable (Command) throws -> Void
        ) {
            testDescription = "\(Command.self) \(name)"
            self.seeds = seeds
            untilStopped = name == "--seconds" || name == "--duration"
            command = {
                let parsed = try Command.parse(arguments)
                return { text in
                    guard let value = Value(argument: text) else { return nil }
                    var command = parsed
                    set(&command, value)
                    return try check(command)
                }
            }
        }
    }

    static let counts = ["20", "1", "65536", "0", "-1"]
    static let fractions = ["0.9", "0.001", "1e-3", "100", "-0.5"]

    private static func option<Command: ParsableCommand & NumberChecking, Value: ExpressibleByArgument>(
        _ command: Command.Type, _ name: String, _ seeds: [String], _ arguments: [String] = [],
        _ set: @escaping @Sendable (inout Command, Value) -> Void
    ) -> NumericOption {
        NumericOption(name, of: arguments, seeds, set: set) { try $0.checkNumbers() }
    }

    /// gesture-detect's, whose arguments are a group of options rather than a command here.
    private static func detect<Value: ExpressibleByArgument>(
        _ name: String, _ seeds: [String], _ set: @escaping @Sendable (inout DetectArguments, Value) -> Void
    ) -> NumericOption {
        NumericOption(name, of: ["--model", "m"], seeds, set: set) { try $0.checkNumbers() }
    }

    static let numericOptions: [NumericOption] = [
        option(Train.self, "--window", counts) { $0.model.window = $1 },
        option(Train.self, "--epochs", counts) { $0.model.epochs = $1 },
        option(Train.self, "--batch", counts) { $0.model.batch = $1 },
        option(Train.self, "--conv-filters", counts) { $0.model.convFilters = $1 },
        option(Train.self, "--lstm-units", counts) { $0.model.lstmUnits = $1 },
        option(Train.self, "--dense-units", counts) { $0.model.denseUnits = $1 },
        option(Train.self, "--temporal-filters", counts) { $0.model.temporalFilters = $1 },
        option(Train.self, "--temporal-kernel", counts, ["--architecture", "temporal"]) {
            $0.model.temporalKernel = $1
        },
        option(Train.self, "--temporal-layers", counts, ["--architecture", "temporal"]) {
            $0.model.temporalLayers = $1
        },
        option(Train.self, "--overfit", counts) { $0.overfit = $1 },
        option(Train.self, "--learning-rate", fractions) { $0.model.learningRate = $1 },
        option(Train.self, "--rotation", fractions) { $0.model.rotation = $1 },
        option(Train.self, "--warp", fractions) { $0.model.warp = $1 },
        option(Train.self, "--scale", fractions) { $0.model.scale = $1 },
        option(Crossval.self, "--runs", counts) { $0.runs = $1 },
        option(Crossval.self, "--offset", counts) { $0.detection.offset = $1 },
        option(Crossval.self, "--averaging", counts) { $0.detection.averaging = $1 },
        option(Crossval.self, "--threshold", fractions) { $0.detection.threshold = $1 },
        option(Crossval.self, "--cooldown", fractions) { $0.detection.cooldown = $1 },
        option(Personalize.self, "--neighbours", counts, ["--model", "m"]) { $0.neighbours = $1 },
        option(Personalize.self, "--prototypes", counts, ["--model", "m"]) { $0.prototypes = $1 },
        option(Personalize.self, "--epochs", counts, ["--model", "m"]) { $0.epochs = $1 },
        option(Personalize.self, "--learning-rate", fractions, ["--model", "m"]) { $0.learningRate = $1 },
        option(Play.self, "--rounds", counts, ["--model", "m"]) { $0.rounds = $1 },
        option(Play.self, "--personalize", counts, ["--model", "m"]) { $0.personalize = $1 },
        option(Play.self, "--timeout", fractions, ["--model", "m"]) { $0.timeout = $1 },
        option(Play.self, "--mistakes", fractions, ["--model", "m"]) { $0.mistakes = $1 },
        option(Play.self, "--offset", counts, ["--model", "m"]) { $0.options.detection.offset = $1 },
        option(Play.self, "--averaging", counts, ["--model", "m"]) { $0.options.detection.averaging = $1 },
        option(Play.self, "--threshold", fractions, ["--model", "m"]) { $0.options.detection.threshold = $1 },
        option(Play.self, "--cooldown", fractions, ["--model", "m"]) { $0.options.detection.cooldown = $1 },
        option(Export.self, "--offset", counts, exportC) { $0.detection.offset = $1 },
        option(Export.self, "--averaging", counts, exportC) { $0.detection.averaging = $1 },
        option(Export.self, "--threshold", fractions, exportC) { $0.detection.threshold = $1 },
        option(Export.self, "--cooldown", fractions, exportC) { $0.detection.cooldown = $1 },
        option(ImportModel.self, "--rate", fractions, ["x.mlmodel", "-o", "x"]) { $0.rate = $1 },
        option(Import.self, "--sample-rate", fractions, ["x.csv", "--map", "user=u"]) { $0.sampleRate = $1 },
        option(Plot.self, "--panels", counts, ["-o", "p.svg"]) { $0.panels = $1 },
        option(Plot.self, "--width", ["900", "300", "20000", "1e4", "-1"], ["-o", "p.svg"]) { $0.width = $1 },
        option(Clean.self, "--window", fractions) { $0.window = $1 },
        option(Monitor.self, "--seconds", fractions) { $0.seconds = $1 },
        detect("--duration", fractions) { $0.duration = $1 },
        detect("--offset", counts) { $0.options.detection.offset = $1 },
        detect("--averaging", counts) { $0.options.detection.averaging = $1 },
        detect("--threshold", fractions) { $0.options.detection.threshold = $1 },
        detect("--cooldown", fractions) { $0.options.detection.cooldown = $1 },
    ]
    static let exportC = ["m", "--format", "c", "-o", "c"]

    @Test(arguments: numericOptions)
    func numericOption(_ option: NumericOption) throws {
        let check = try option.command()
        let counts = try fuzz("option \(option.testDescription)", seeds: option.seeds.map { Array($0.utf8) }) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                guard try check(text) != nil else { return false }
            } catch let failure as Failure {
                #expect(failure.code == Failure.usageCode)
                #expect(
                    failure.message.hasPrefix(option.name) || failure.message.contains("needs about"),
                    "\(failure.message)")
                #expect(!failure.message.contains("\n"), "\(failure.message)")
                return false
            }
            let value = Double(text)
            #expect(
                value?.isFinite == true || (option.untilStopped && value == .infinity),
                "\(option.testDescription) took \(text.debugDescription)")
            return true
        }
        #expect(counts.read > 0 && counts.refused > 0)
    }
}
