import Foundation
import GestureCore
import GestureMotion
import GestureTestSupport
import Testing

@testable import GestureInterop
@testable import GestureLearning

/// Synthetic sessions of three classes, six features far from the unit scale.
let interopSessions = SyntheticSessions(sessions: 9, totalSamples: 2_700, featureCount: 6, classCount: 3, seed: 4)
    .make().map { sequence in
        var shifted = sequence
        shifted.features = sequence.features.enumerated().map { index, value in
            value * Float(1 + index % 6) + Float(index % 6) - 2
        }
        return shifted
    }

/// Six features, three classes, small layers of different widths (so that a transposed matrix
/// cannot go unnoticed), trained a little on `interopSessions`, with a normalization far from the
/// identity.
let interopModel: GestureModel = {
    let description = ModelDescription(
        featureNames: BookInterface.features, windowing: Windowing(window: 20), samplingRate: 25,
        classNames: ["chop", "rest", "shake"], layers: LayerSizes(convolutionFilters: 12, lstmUnits: 10, denseUnits: 8))
    let trainer = Trainer(model: description, options: TrainingOptions(epochs: 3, batchSize: 4, seed: 2))
    // Training synthetic sessions with these options cannot fail.
    return try! trainer.train(interopSessions, validation: []).model
}()

/// The interop model with a stricter rejection, a quarter of its taught windows beyond the limits:
/// a stream has many windows of both kinds.
let rejectingModel = interopModel.calibratingRejection(on: interopSessions, falseRejectRate: 0.25)

/// The rejecting model with the test of the motion's statistics too, as strict.
let motionRejectingModel = interopModel.calibratingRejection(
    on: interopSessions, falseRejectRate: 0.25, motion: MotionCalibration(falseRejectRate: 0.25))

/// 48 windows of raw features, one stream, and what GestureLab's streaming classifier gives for them:
/// random values, each second window from `interopSessions` (motion the interop model was taught).
func stream(of model: GestureModel, windows count: Int = 48, seed: UInt64 = 7) -> ExportedStream {
    var random = SeededRandom(seed: seed)
    let size = model.architecture.windowSize, features = model.featureNames.count
    let taught = interopSessions.flatMap { session in
        stride(from: 0, through: session.features.count - size, by: size).map {
            Array(session.features[$0..<$0 + size])
        }
    }
    let windows = (0..<count).map { window in
        guard window % 2 == 1, size == taught[0].count else {
            return (0..<size).map { index in Float(random.uniform(-3...3)) * Float(1 + index % features) }
        }
        return taught[window * 7 % taught.count]
    }
    return stream(of: model, windows: windows)
}

/// What GestureLab's streaming classifier gives for `windows`, one stream: probabilities and, for a
/// model that rejects, whether each window is unknown motion and (of the LSTM's hidden state, which
/// the state shows) the margins of its rejection.
func stream(of model: GestureModel, windows: [[Float]]) -> ExportedStream {
    let classifier = StreamingClassifier(model: model)
    var state = classifier.initialState
    var exported = ExportedStream(
        windows: windows, probabilities: [], classes: model.classNames, features: model.featureNames)
    let rejection = model.rejection
    let classes = rejection.map { rejection in Set(rejection.labels).filter { $0 < rejection.limits.count }.sorted() }
    exported.marginClasses = classes
    for window in windows {
        let probabilities = classifier.step(window, state: &state)
        exported.probabilities.append(probabilities)
        guard let rejection, let classes else { continue }
        exported.unknown = (exported.unknown ?? []) + [classifier.rejects(probabilities, state: state)]
        guard rejection.embedding == .lstm else { continue }
        let statistics = rejection.motion.map { state.motion.statistics(center: $0.center, scale: $0.scale) }
        let margins = state.hidden.withUnsafeBufferPointer { hidden in
            classes.map { label in
                let margin = rejection.distance(hidden.baseAddress!, to: label) - rejection.limits[label]
                guard let motion = rejection.motion, let statistics else { return margin }
                return max(margin, motion.distance(statistics, to: label) - motion.limits[label])
            }
        }
        exported.margins = (exported.margins ?? []) + [margins]
    }
    return exported
}

struct ExportedStream: Codable {
    var windows: [[Float]]
    var probabilities: [[Float]]
    var classes: [String]
    var features: [String]
    /// For a model that rejects unknown motion: whether GestureLab rejects each window, and the
    /// cosine distance to the nearest prototype less the limit of each of `marginClasses`.
    var unknown: [Bool]?
    var margins: [[Float]]?
    var marginClasses: [Int]?

    enum CodingKeys: String, CodingKey {
        case windows, probabilities, classes, features, unknown, margins
        case marginClasses = "margin_classes"
    }
}

@Suite struct CoreMLRoundTripTests {
    @Test func anExportedModelReadBackPredictsWhatTheOriginalDoes() throws {
        let exported = try CoreMLExport(model: interopModel).serialized()
        let imported = try CoreMLImport(serialized: exported, rate: nil).model
        #expect(imported.classNames == interopModel.classNames)
        #expect(imported.featureNames == interopModel.featureNames)
        #expect(imported.samplingRate == interopModel.samplingRate)
        #expect(imported.windowing == interopModel.windowing)
        #expect(imported.normalization == interopModel.normalization)
        let original = stream(of: interopModel), again = stream(of: imported)
        let difference = zip(original.probabilities.joined(), again.probabilities.joined()).map { abs($0 - $1) }.max()!
        #expect(difference <= 1e-6)
    }

    @Test func theBooksLabelsGoOutWithUnderscoreItAndComeBackWithout() throws {
        let exported = try CoreMLExport(model: interopModel, bookLabels: true)
        #expect(exported.classLabels == ["chop_it", "rest_it", "shake_it"])
        var spec = try CoreMLModel(serializedBytes: exported.serialized())
        spec.description_p.metadata.userDefined[GestureLabMetadata.classNames] = nil
        let imported = try CoreMLImport(serialized: try spec.serializedBytes(), rate: nil)
        #expect(imported.model.classNames == ["chop", "rest", "shake"])
        #expect(imported.interface.contains("classes: chop_it → chop, rest_it → rest, shake_it → shake"))
    }

    @Test func aModelOfAnotherShapeIsRefusedNamingWhatDiffers() throws {
        var spec = try CoreMLModel(serializedBytes: try CoreMLExport(model: interopModel).serialized())
        spec.neuralNetworkClassifier.layers.remove(at: 5)
        #expect(
            throws: InteropError(
                "not shaped as Turi Create's activity classifier: layer 6 'relu_layer1' is ReLU where it has batchnorm")
        ) { try CoreMLImport(serialized: try spec.serializedBytes(), rate: nil) }

        spec = try CoreMLModel(serializedBytes: try CoreMLExport(model: interopModel).serialized())
        spec.neuralNetworkClassifier.layers[1].convolution.stride = [1, 10]
        #expect(throws: InteropError.self) { try CoreMLImport(serialized: try spec.serializedBytes(), rate: nil) }

        spec.type = nil
        #expect(
            throws: InteropError(
                "a Core ML model of another kind: GestureLab reads neural network classifiers shaped as Turi Create's activity classifier"
            )
        ) { try CoreMLImport(serialized: try spec.serializedBytes(), rate: nil) }
        #expect(throws: InteropError.self) { try CoreMLImport(serialized: Array("not a model".utf8), rate: nil) }
    }

    /// The motion's statistics add a third state, `motionIn` (optional, as the LSTM's) and
    /// `motionOut`, of each feature's two averages and their weight; a model without that test keeps
    /// the book's interface and its rejection's four layers.
    @Test func theMotionsStatisticsAddAStateInAndOut() throws {
        let spec = try CoreMLModel(serializedBytes: try CoreMLExport(model: motionRejectingModel).serialized())
        let state = [Int64(2 * motionRejectingModel.featureNames.count + 1)]
        let inputs = spec.description_p.input, outputs = spec.description_p.output
        #expect(inputs.map(\.name) == ["features", "hiddenIn", "cellIn", "motionIn"])
        #expect(inputs[3].type.multiArrayType.shape == state && inputs[3].type.isOptional)
        #expect(
            outputs.map(\.name) == [
                "activityProbability", "hiddenOut", "cellOut", "activity", "rejectionMargin", "motionOut",
            ])
        #expect(outputs[5].type.multiArrayType.shape == state && !outputs[5].type.isOptional)

        let plain = try CoreMLModel(serializedBytes: try CoreMLExport(model: rejectingModel).serialized())
        #expect(plain.description_p.input.map(\.name) == ["features", "hiddenIn", "cellIn"])
        #expect(plain.description_p.output.map(\.name).last == "rejectionMargin")
        let rejection = plain.neuralNetworkClassifier.layers.map(\.name).filter { $0.hasPrefix("rejection_") }
        #expect(rejection == ["rejection_normalize", "rejection_margins", "rejection_by_class", "rejection_nearest"])
    }

    /// The import reads the network of a file with the motion's test and leaves the rejection out.
    @Test func aModelWithTheMotionsTestReadsBackWithoutItsRejection() throws {
        let exported = try CoreMLExport(model: motionRejectingModel).serialized()
        let imported = try CoreMLImport(serialized: exported, rate: nil)
        #expect(imported.model.rejection == nil)
        let state = 2 * motionRejectingModel.featureNames.count + 1
        #expect(imported.interface[1].hasSuffix("motionIn [\(state)] double (optional)"), "\(imported.interface[1])")
        let original = stream(of: interopModel), again = stream(of: imported.model)
        let difference = zip(original.probabilities.joined(), again.probabilities.joined()).map { abs($0 - $1) }.max()!
        #expect(difference <= 1e-6)
    }

    /// The import reads the network of a file with random convolutions and leaves them out.
    @Test func aModelWithRandomConvolutionsReadsBackAsItsNetwork() throws {
        let exported = try CoreMLExport(model: try ExportedFilesTests.withRandomConvolutions).serialized()
        let imported = try CoreMLImport(serialized: exported, rate: nil)
        #expect(imported.model.randomConvolutions == nil && imported.model.rejection == nil)
        #expect(imported.interface.contains { $0.contains("recentIn") }, "\(imported.interface)")
        let original = stream(of: interopModel), again = stream(of: imported.model)
        let difference = zip(original.probabilities.joined(), again.probabilities.joined()).map { abs($0 - $1) }.max()!
        #expect(difference <= 1e-6)
    }

    @Test func withoutARateInTheFileTheUserMustGiveOne() throws {
        var spec = try CoreMLModel(serializedBytes: try CoreMLExport(model: interopModel).serialized())
        spec.description_p.metadata.userDefined[GestureLabMetadata.samplingRate] = nil
        let bytes: [UInt8] = try spec.serializedBytes()
        #expect(throws: InteropError.self) { try CoreMLImport(serialized: bytes, rate: nil) }
        #expect(try CoreMLImport(serialized: bytes, rate: 50).model.samplingRate == 50)
    }

    @Test func damagedWeightsAreNamed() throws {
        var spec = try CoreMLModel(serializedBytes: try CoreMLExport(model: interopModel).serialized())
        spec.neuralNetworkClassifier.layers[4].innerProduct.weights.floatValue.removeLast()
        #expect(
            throws: InteropError("its dense weights are 79 numbers where its sizes call for 80")
        ) { try CoreMLImport(serialized: try spec.serializedBytes(), rate: nil) }
    }
}

/// The files GestureLab writes, checked by the real coremltools and onnxruntime in the pinned
/// environment scripts/interop-venv makes (scripts/test makes it).
@Suite struct ExportedFilesTests {
    static let python = Repository.path(".cache/interop/bin/python")
    static let script = Repository.path("Tests/GestureInteropTests/Python/check_exports.py")

    @Test(arguments: [false, true])
    func coremltoolsReadsTheCoreMLFileAndItsSpecPredictsWhatGestureLabDoes(bookLabels: Bool) throws {
        let folder = try TemporaryFolder()
        let file = folder.path.appending("model.mlmodel").string
        try Data(try CoreMLExport(model: rejectingModel, bookLabels: bookLabels).serialized())
            .write(to: URL(fileURLWithPath: file))
        let output = try check(
            ["coreml", file, try write(try rejectingStream(), in: folder)]
                + (bookLabels ? ["--labels-suffix", "_it"] : []),
            in: folder)
        #expect(output.hasPrefix("coreml: 48 windows"))
        print(output)
        #expect(output.contains(try rejectionSummary()), "\(output)")
    }

    @Test func theBookSizedModelToo() throws {
        let model = GestureModel(
            untrained: ModelDescription(
                featureNames: BookInterface.features, windowing: Windowing(window: 20), samplingRate: 25,
                classNames: ["chop", "drive", "rest", "shake"]),
            normalization: FeatureNormalization(
                mean: [0.1, -0.2, 0, 0.05, 0, -0.1], deviation: [1.5, 2, 1, 0.4, 0.3, 0.5]),
            seed: 11)
        let folder = try TemporaryFolder()
        let coreML = folder.path.appending("book.mlmodel").string, onnx = folder.path.appending("book.onnx").string
        try Data(try CoreMLExport(model: model).serialized()).write(to: URL(fileURLWithPath: coreML))
        try Data(try ONNXExport(model: model).serialized()).write(to: URL(fileURLWithPath: onnx))
        let data = try write(stream(of: model, windows: 40), in: folder)
        #expect(try check(["coreml", coreML, data], in: folder).hasPrefix("coreml: 40 windows"))
        #expect(try check(["onnx", onnx, data], in: folder).hasPrefix("onnx: 40 windows"))
    }

    @Test func onnxruntimeRunsTheONNXFileStreamingWithTheStateFedBack() throws {
        let folder = try TemporaryFolder()
        let file = folder.path.appending("model.onnx").string
        try Data(try ONNXExport(model: rejectingModel).serialized()).write(to: URL(fileURLWithPath: file))
        let output = try check(["onnx", file, try write(try rejectingStream(), in: folder)], in: folder)
        #expect(output.hasPrefix("onnx: 48 windows"))
        print(output)
        #expect(output.contains(try rejectionSummary()), "\(output)")
    }

    /// The motion's statistics go out as a third state fed back, and the larger margin: ONNX's
    /// `motion_in`/`motion_out`, Core ML's `motionIn`/`motionOut`. onnxruntime and the NumPy pass of
    /// the Core ML spec reject the windows GestureLab's streaming classifier rejects (some by the
    /// motion's test alone), margins within 1e-5.
    @Test func theMotionsStatisticsTestRunsInONNXAndCoreMLWithItsStateFedBack() throws {
        let byEmbedding = try #require(stream(of: rejectingModel).unknown)
        let stream = try rejectingStream(of: motionRejectingModel)
        let rejected = stream.unknown!
        #expect(zip(rejected, byEmbedding).contains { $0 && !$1 }, "the motion's test rejects windows of its own")
        let folder = try TemporaryFolder()
        let coreML = folder.path.appending("motion.mlmodel").string, onnx = folder.path.appending("motion.onnx").string
        try Data(try CoreMLExport(model: motionRejectingModel).serialized()).write(to: URL(fileURLWithPath: coreML))
        try Data(try ONNXExport(model: motionRejectingModel).serialized()).write(to: URL(fileURLWithPath: onnx))
        let data = try write(stream, in: folder)
        for (format, file) in [("coreml", coreML), ("onnx", onnx)] {
            let output = try check([format, file, data], in: folder)
            print(output)
            #expect(output.contains("unknown motion on \(rejected.count { $0 }) windows as GestureLab"), "\(output)")
        }
    }

    /// Random convolutions go out as a fourth state, `recent_in` and `recent_count_in`: onnxruntime
    /// gives GestureLab's averaged probabilities (within 1e-5) and rejects the windows it rejects,
    /// with the ridge's calibrated probabilities, or a model file's from before, its raw scores.
    @Test(arguments: [true, false])
    func randomConvolutionsRunInONNXWithTheirSamplesFedBack(calibrated: Bool) throws {
        var model = try Self.withRandomConvolutions
        if !calibrated { model.randomConvolutions?.ridge.inverseTemperature = nil }
        let stream = try rejectingStream(of: model)
        #expect(stream.probabilities != GestureInteropTests.stream(of: model.networkAlone).probabilities)
        let folder = try TemporaryFolder()
        let file = folder.path.appending("both.onnx").string
        try Data(try ONNXExport(model: model).serialized()).write(to: URL(fileURLWithPath: file))
        let output = try check(["onnx", file, try write(stream, in: folder)], in: folder)
        print(output)
        #expect(output.contains("unknown motion on \(stream.unknown!.count { $0 }) windows as GestureLab"), "\(output)")
    }

    /// In Core ML, random convolutions are a fourth state too, `recentIn` and `recentCountIn`: the
    /// NumPy pass of its specification version 1 layers (in float32, as Core ML's CPU) gives
    /// GestureLab's averaged probabilities (within 1e-5) and rejects the windows it rejects. In the
    /// history of many of the stream's windows a kernel's output equals a bias, which only samples
    /// normalized exactly as GestureLab does leave uncounted.
    @Test func randomConvolutionsRunInCoreMLWithTheirSamplesFedBack() throws {
        let model = try Self.withRandomConvolutions
        let stream = try rejectingStream(of: model)
        #expect(stream.probabilities != GestureInteropTests.stream(of: model.networkAlone).probabilities)
        let ties = try #require(model.randomConvolutions).windowsWithTies(in: stream.windows)
        #expect(ties.count >= stream.windows.count / 4, "\(ties)")
        let folder = try TemporaryFolder()
        let file = folder.path.appending("both.mlmodel").string
        try Data(try CoreMLExport(model: model).serialized()).write(to: URL(fileURLWithPath: file))
        let output = try check(["coreml", file, try write(stream, in: folder)], in: folder)
        print(output, "(\(ties.count) windows with an output equal to a bias)")
        #expect(output.contains("unknown motion on \(stream.unknown!.count { $0 }) windows as GestureLab"), "\(output)")
    }

    /// The rejecting model with random convolutions over 60 samples beside its network.
    static var withRandomConvolutions: GestureModel {
        get throws {
            var model = rejectingModel
            model.randomConvolutions = try RandomConvolutionClassifier(
                training: interopSessions, classNames: model.classNames, windowing: model.windowing,
                settings: .init(history: 60, outputCount: 500), seed: 3)
            return model
        }
    }

    /// A rejection of the dense layer's output, not of the LSTM's state, goes out as well.
    @Test func aRejectionOfTheDenseLayersOutputToo() throws {
        let model = interopModel.calibratingRejection(on: interopSessions, embedding: .dense, falseRejectRate: 0.25)
        let folder = try TemporaryFolder()
        let coreML = folder.path.appending("dense.mlmodel").string, onnx = folder.path.appending("dense.onnx").string
        try Data(try CoreMLExport(model: model).serialized()).write(to: URL(fileURLWithPath: coreML))
        try Data(try ONNXExport(model: model).serialized()).write(to: URL(fileURLWithPath: onnx))
        let data = try write(try rejectingStream(of: model), in: folder)
        let summary = "unknown motion on \(try rejectingStream(of: model).unknown!.count { $0 }) windows"
        #expect(try check(["coreml", coreML, data], in: folder).contains(summary))
        #expect(try check(["onnx", onnx, data], in: folder).contains(summary))
    }

    /// `model`'s stream: windows it rejects and windows it does not.
    private func rejectingStream(of model: GestureModel = rejectingModel) throws -> ExportedStream {
        let stream = stream(of: model)
        let unknown = try #require(stream.unknown, "the interop model rejects unknown motion")
        #expect(unknown.contains(true) && unknown.contains(false), "\(unknown)")
        return stream
    }

    /// What the check prints when the export rejects the windows GestureLab rejects.
    private func rejectionSummary() throws -> String {
        "unknown motion on \(try rejectingStream().unknown!.count { $0 }) windows as GestureLab"
    }

    private func write(_ stream: ExportedStream, in folder: TemporaryFolder) throws -> String {
        let path = folder.path.appending("stream.json").string
        try JSONEncoder().encode(stream).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs the check; its one line of figures, or a failure with what it printed.
    private func check(_ arguments: [String], in folder: TemporaryFolder) throws -> String {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "no \(Self.python): scripts/interop-venv makes it (scripts/test runs it)")
        let result = try runGesture([Self.script] + arguments, in: folder.path, executable: Self.python)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        return result.output
    }
}

/// An optional check, where ../shared has the book's model: GestureLab's import of it predicts what
/// the file's own network does (a NumPy pass of its spec), up to the bfloat16 rounding of the
/// large matrices every GestureLab model holds.
@Suite struct BookModelTests {
    static let path = Repository.root.deletingLastPathComponent()
        .appendingPathComponent("shared/models/book-GestureClassifier.mlmodel").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: path), "needs ../shared/models"))
    func theImportedBookModelPredictsWhatTheFileDoes() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.path)))
        let model = try CoreMLImport(serialized: bytes, rate: 25).model
        #expect(model.classNames == ["chop", "drive", "rest", "shake"])
        let folder = try TemporaryFolder()
        var windows = stream(of: model, windows: 200)
        // The book's features in their units: rotation rates of a few rad/s, user acceleration below 2 g.
        windows.windows = windows.windows.map { window in
            window.enumerated().map { index, value in value / Float(1 + index % 6) * (index % 6 < 3 ? 1 : 0.4) }
        }
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        windows.probabilities = windows.windows.map { classifier.step($0, state: &state) }
        let data = folder.path.appending("stream.json").string
        try JSONEncoder().encode(windows).write(to: URL(fileURLWithPath: data))
        try #require(FileManager.default.isExecutableFile(atPath: ExportedFilesTests.python))
        let result = try runGesture(
            [ExportedFilesTests.script, "compare", Self.path, data], in: folder.path,
            executable: ExportedFilesTests.python)
        print(result.output)
        #expect(result.status == 0, "\(result.error)")
        let figures = result.output.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" })
        let difference = try #require(Double(figures[figures.firstIndex(of: "difference")! + 1]))
        let agreement = try #require(Double(figures.last!))
        #expect(difference < 0.05 && agreement >= 0.98, "\(result.output)")
    }
}

extension RandomConvolutionClassifier {
    /// The windows of `windows` (one stream of raw features) over whose history a kernel's output
    /// equals one of its biases.
    func windowsWithTies(in windows: [[Float]]) -> [Int] {
        let channels = convolutions.channelCount, history = convolutions.history
        let samples = normalization.applied(to: Array(windows.joined()))
        let ties = convolutions.kernels.map { kernel in
            let outputs = kernel.outputs(of: samples[...], channelCount: channels)
            return (span: kernel.span, positions: outputs.indices.filter { kernel.biases.contains(outputs[$0]) })
        }
        return windows.indices.filter { window in
            let end = (window + 1) * windows[window].count / channels
            return ties.contains { tie in tie.positions.contains { $0 >= end - history && $0 + tie.span <= end } }
        }
    }
}
