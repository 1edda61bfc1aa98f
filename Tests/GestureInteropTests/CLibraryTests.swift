import Foundation
import GestureCore
import GestureLive
import GestureMotion
import GestureTargets
import GestureTestSupport
import Testing

@testable import GestureInterop
@testable import GestureLearning

/// The exported C library, compiled by real C compilers with every warning an error, for this machine,
/// aarch64 Linux and a Cortex-M4F (run in QEMU), and fed the same windows and samples as GestureLab.
@Suite struct CLibraryTests {
    @Test(arguments: [CLibrary.Weights.float32, .int8])
    func theLibraryPredictsWhatGestureLabPredicts(weights: CLibrary.Weights) throws {
        try checkPredictions(weights: weights, windows: 200, on: .host)
    }

    /// A rejection of the dense layer's output, not of the LSTM's state: the library computes that layer again.
    @Test func aRejectionOfTheDenseLayersOutputDecidesAsGestureLab() throws {
        let model = interopModel.calibratingRejection(on: interopSessions, embedding: .dense, falseRejectRate: 0.25)
        #expect(
            try CLibrary(model: model, weights: .float32).source.contains("dense_embedding(state->hidden, embedding)"))
        try checkPredictions(of: model, weights: .float32, windows: 200, on: .host)
    }

    /// The motion's statistics too: the slots' moving averages kept in C decide as GestureLab's.
    @Test func aRejectionByTheMotionsStatisticsDecidesAsGestureLab() throws {
        let model = interopModel.calibratingRejection(
            on: interopSessions, falseRejectRate: 0.25, motion: MotionCalibration(falseRejectRate: 0.25))
        let library = try CLibrary(model: model, weights: .float32)
        #expect(library.source.contains("motion_add(normalized, state);"))
        let without = try CLibrary(model: rejectingModel, weights: .float32)
        #expect(library.ramBytes == without.ramBytes + library.slots * 4 * (2 * 6 + 1) + 4 * 2 * 6)
        let rejected = try #require(stream(of: model, windows: 200).unknown)
        let byEmbedding = try #require(stream(of: rejectingModel, windows: 200).unknown)
        #expect(zip(rejected, byEmbedding).contains { $0 && !$1 }, "the motion's test rejects windows of its own")
        try checkPredictions(of: model, weights: .float32, windows: 200, on: .host)
        if CTarget.aarch64.isInstalled {
            try checkPredictions(of: model, weights: .float32, windows: 200, on: .aarch64)
        }
    }

    /// Random convolutions beside the network: each slot keeps its last samples, and the averaged
    /// probabilities, the windows rejected and the detections are GestureLab's, here and on aarch64.
    @Test func randomConvolutionsBesideTheNetworkPredictAndDetectAsGestureLab() throws {
        var model = rejectingModel
        model.randomConvolutions = try RandomConvolutionClassifier(
            training: interopSessions, classNames: model.classNames, windowing: model.windowing,
            settings: .init(history: 60, outputCount: 500), seed: 3)
        let library = try CLibrary(model: model, weights: .float32)
        #expect(library.source.contains("convolution_scores(window, state, scores);"))
        let network = try CLibrary(model: model.networkAlone, weights: .float32)
        let features = try #require(model.randomConvolutions).convolutions.outputCount
        #expect(
            library.ramBytes
                == network.ramBytes + library.slots * 4 * (60 * 6 + 1) + 4 * (2 * 60 + features + 3),
            "each slot's samples, and on the stack the summed channels, outputs, features and scores")
        for weights in CLibrary.Weights.allCases {
            try checkPredictions(of: model, weights: weights, windows: 200, on: .host)
        }
        try checkDetections(of: syntheticSamples(), by: model, on: .host)
        if CTarget.aarch64.isInstalled {
            try checkPredictions(of: model, weights: .float32, windows: 200, on: .aarch64)
        }
        var short = model
        short.windowing = Windowing(window: 65)
        #expect(
            throws: InteropError(
                "the random convolutions look back 60 samples, less than the window of 65: C cannot carry them")
        ) { try CLibrary(model: short, weights: .float32) }
    }

    @Test func theDetectorFindsWhatGestureLabsDetectorFinds() throws {
        try checkDetections(of: syntheticSamples(), by: widenedInteropModel, on: .host)
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .host)
    }

    /// The class of a detection renamed `other`, background motion: neither detector reports it.
    @Test func backgroundMotionIsNeverReported() throws {
        let samples = syntheticSamples()
        let detected = gestureLabPredictions(of: samples, by: widenedInteropModel).filter { $0.label.contains(" 1 ") }
        let gesture = try #require(detected.first?.label.split(separator: " ").first.map(String.init))
        var background = widenedInteropModel
        background.classNames[background.classNames.firstIndex(of: gesture)!] = ActivityLabel.other.rawValue
        let remaining = gestureLabPredictions(of: samples, by: background).filter { $0.label.contains(" 1 ") }
        #expect(remaining.allSatisfy { !$0.label.hasPrefix(gesture) && !$0.label.hasPrefix("other") })
        try checkDetections(of: samples, by: background, on: .host, detections: remaining.count)
    }

    @Test(.enabled(if: CTarget.aarch64.isInstalled, Comment(rawValue: CTarget.aarch64.missing)))
    func onAarch64LinuxTheLibraryPredictsAndDetectsAsGestureLab() async throws {
        for weights in CLibrary.Weights.allCases { try checkPredictions(weights: weights, windows: 200, on: .aarch64) }
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .aarch64)
        try checkBoard(readings: try watchReadings(rate: 50), rate: 50, on: .aarch64, detections: 3, unknown: 3)
        try checkBoard(readings: try await simulatedReadings(), rate: 100, on: .aarch64, detections: 0, unknown: 0)
    }

    @Test(.enabled(if: CTarget.cortexM4.isInstalled, Comment(rawValue: CTarget.cortexM4.missing)))
    func onACortexM4FTheLibraryPredictsAndDetectsAsGestureLab() throws {
        for weights in CLibrary.Weights.allCases { try checkPredictions(weights: weights, windows: 200, on: .cortexM4) }
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .cortexM4)
        try checkBoard(readings: try watchReadings(rate: 50), rate: 50, on: .cortexM4, detections: 3, unknown: 3)
        let book = LayerSizes(convolutionFilters: 64, lstmUnits: 200, denseUnits: 128)
        for (name, layers) in [("book-sized", book), ("board-sized", LayerSizes.board)] {
            for weights in CLibrary.Weights.allCases {
                let library = try CLibrary(
                    model: modelNaming(interopModel.classNames, layers: layers), weights: weights)
                let sections = try cortexM4Sections(of: library)
                print(
                    "Cortex-M4F, \(name) \(weights): text \(sections.text), data + bss \(sections.ram), "
                        + "stack \(sections.stack) bytes")
                #expect(sections.text >= library.flashBytes && sections.ram == 0, "no RAM but the caller's")
                #expect(sections.stack <= library.stackBytes)
                guard name == "board-sized" else { continue }
                #expect(sections.text <= 256 * 1024, "the board preset's flash")
                #expect(library.ramBytes <= 64 * 1024, "the board preset's RAM")
                let instructions = try cortexM4Instructions(
                    of: library, running: CLibrary.predictionsProgram, macro: "PREDICTIONS")
                print("Cortex-M4F, \(name) \(weights): \(instructions) instructions per prediction")
                #expect(instructions > 0 && instructions <= 64_000_000 / 25, "25 a second at 64 MHz")
            }
        }
        // The front end computes in double, which the M4F's single-precision FPU leaves to software.
        let library = try CLibrary(model: recordedModel, weights: .float32)
        let instructions = try cortexM4Instructions(of: library, running: CLibrary.readingsProgram, macro: "READINGS")
        print("Cortex-M4F: \(instructions) instructions per reading through the front end")
        #expect(
            instructions > 0 && instructions <= 64_000_000 / 100 / 4, "100 readings a second in a quarter of 64 MHz")
    }

    /// `gesture-bench c-library` measures this machine as the Cortex-M4F: the library's sections and
    /// stack, and its instructions per prediction, QEMU's user mode running this machine's program.
    @Test(.enabled(if: CTarget.host.countsInstructions, "needs qemu-user (scripts/setup --tests installs it)"))
    func onThisMachineTheLibrarysSizesAndInstructionsAreMeasured() throws {
        let tiny = LayerSizes(convolutionFilters: 4, lstmUnits: 3, denseUnits: 2)
        var counts: [Int] = []
        for layers in [tiny, LayerSizes.board] {
            let library = try CLibrary(model: modelNaming(interopModel.classNames, layers: layers), weights: .float32)
            let folder = try folder(with: library)
            let sections = try CTarget.host.sections(ofLibraryIn: folder.path.string)
            #expect(sections.text >= library.flashBytes && sections.ram == 0, "no RAM but the caller's")
            #expect(sections.stack > 0 && sections.stack <= library.stackBytes)
            counts.append(
                try CTarget.host.instructionsPerStep(
                    ofLibraryIn: folder.path.string, running: CLibrary.predictionsProgram, macro: "PREDICTIONS"))
            // Each weight is read once a prediction, four to an instruction at most (SIMD).
            #expect(counts.last! >= library.flashBytes / 4 / 4, "\(layers)")
        }
        print("this machine: \(counts) instructions per prediction")
        #expect(counts[0] < counts[1])
    }

    @Test func theHeadersUsageExampleRunsAndDetectsWhatGestureLabDetects() throws {
        let library = try CLibrary(model: recordedModel, weights: .float32, settings: detectionSettings)
        let folder = try folder(with: library, main: CLibrary.usageExample)
        let path = folder.path.string
        try readSensor.write(toFile: "\(path)/sensor.c", atomically: true, encoding: .utf8)
        let example = CLibrary.usageExample.split(separator: "\n")
        #expect(example.allSatisfy { library.header.contains("     \($0)\n") }, "the header shows the example")
        let program = try CTarget.host.compile(["main.c", "sensor.c", CLibrary.sourceName], in: path)
        let readings = try watchReadings(rate: 25)
        try readingLines(readings).write(toFile: "\(path)/input.txt", atomically: true, encoding: .utf8)
        let output = try CTarget.host.run(program, input: "\(path)/input.txt", in: path)
        let detected = output.split(separator: "\n").map { $0.split(separator: " ")[0...1].joined(separator: " ") }
        let expected = try gestureLabRun(of: readings, rate: 25).detections.map { detection in
            String(format: "%.2f", detection.time) + " " + detection.gesture
        }
        #expect(!expected.isEmpty && detected == expected)
    }

    /// The real watch recordings' readings at 50 Hz, and a simulated recording's at 100 Hz, raw: the
    /// library's front end computes GestureLab's features of them and finds the same detections.
    @Test func fromRawReadingsTheBoardComputesWhatGestureLabComputes() async throws {
        try checkBoard(readings: try watchReadings(rate: 50), rate: 50, on: .host, detections: 3, unknown: 3)
        try checkBoard(readings: try await simulatedReadings(), rate: 100, on: .host, detections: 0, unknown: 0)
    }

    /// Class names from a Core ML file are anyone's: in C they are string literals and comments, and
    /// none can end one early, start a comment, make a trigraph or splice a line.
    @Test func hostileClassNamesAreEscapedAndReadBackByteForByte() throws {
        let names = [
            "a\"; system(\"x\"); //", "back\\slash\\", "two\nlines", "*/ int x; /*", "what??/", "café ☕\t",
        ]
        let model = try CoreMLImport(serialized: try CoreMLExport(model: modelNaming(names)).serialized(), rate: nil)
            .model
        #expect(model.classNames == names, "import-model keeps the names")
        let library = try CLibrary(model: model, weights: .float32)
        let folder = try folder(with: library, main: printNames)
        let path = folder.path.string
        let program = try CTarget.host.compile(["main.c", CLibrary.sourceName], in: path)
        try "".write(toFile: "\(path)/input.txt", atomically: true, encoding: .utf8)
        let output = try CTarget.host.run(program, input: "\(path)/input.txt", in: path)
        #expect(output.split(separator: "\0").map(String.init) == names)
    }

    @Test func settingsNoDetectorCanRunAreRefused() throws {
        let refused = [
            DetectionSettings(offset: 0), DetectionSettings(offset: -5), DetectionSettings(threshold: .nan),
            DetectionSettings(threshold: .infinity), DetectionSettings(threshold: 1.5),
            DetectionSettings(threshold: -0.1), DetectionSettings(cooldown: .nan), DetectionSettings(cooldown: -1),
            DetectionSettings(cooldown: .infinity), DetectionSettings(averaging: 0),
        ]
        for settings in refused {
            #expect(throws: InteropError.self, "\(settings)") {
                try CLibrary(model: interopModel, weights: .float32, settings: settings)
            }
        }
    }

    @Test func int8TakesAQuarterOfTheFlash() throws {
        let float32 = try CLibrary(model: interopModel, weights: .float32)
        let int8 = try CLibrary(model: interopModel, weights: .int8)
        #expect(int8.flashBytes < float32.flashBytes / 2)
        #expect(throws: InteropError.self) {
            try CLibrary(model: interopModel, weights: .int8, settings: DetectionSettings(offset: 3))
        }
    }
}

private func argmax(_ values: ArraySlice<Float>) -> Int {
    values.indices.max { values[$0] < values[$1] }! - values.startIndex
}

/// `gesture detect`'s settings with a lower threshold, for more detections, and rejection on, the default.
private let detectionSettings = DetectionSettings(offset: 5, threshold: 0.4, cooldown: 1.5, averaging: 2, rest: "rest")

/// The interop model with limits half again as wide as trained. The detector carries each window
/// slot's state through the whole stream, farther from the prototypes than the training chunks the
/// limits were measured on: the trained limits reject every would-be detection of the synthetic
/// stream, these reject some windows and leave detections to compare.
private let widenedInteropModel: GestureModel = {
    var model = interopModel
    let trained = interopModel.rejection!
    model.rejection = Rejection(
        embedding: trained.embedding, dimension: trained.dimension, prototypes: trained.prototypes,
        labels: trained.labels, limits: trained.limits.map { $0 * 1.5 }, falseRejectRate: trained.falseRejectRate)
    return model
}()

/// A new folder holding the library's two files and, as `main.c`, `program`.
private func folder(with library: CLibrary, main program: String = "") throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    try library.write(into: folder.path.string, main: program)
    return folder
}

/// Writes `library` and the check program into a new folder and compiles them for `target`.
private func build(_ library: CLibrary, for target: CTarget) throws -> (TemporaryFolder, String) {
    let folder = try folder(with: library, main: CLibrary.checkProgram)
    return (folder, try target.compile(["main.c", CLibrary.sourceName], in: folder.path.string))
}

/// The check program's lines for `input`, but the last: "sizes", checked against the RAM reported.
private func run(
    _ program: String, input: String, in folder: TemporaryFolder, on target: CTarget, ram: Int
) throws
    -> [Substring]
{
    let inputPath = folder.path.appending("input.txt").string
    try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
    let lines = try target.run(program, input: inputPath, in: folder.path.string).split(separator: "\n")
    let sizes = try #require(lines.last.flatMap { Int($0.split(separator: " ")[1]) }, "\(lines.suffix(1))")
    #expect(sizes <= ram, "sizeof the detector on \(target)")
    return lines.dropLast()
}

/// Streams `windows` windows (`stream(of:)`'s) through `model`'s library on `target` and through
/// GestureLab: the same probabilities and the same windows rejected as unknown motion.
private func checkPredictions(
    of model: GestureModel = interopModel, weights: CLibrary.Weights, windows: Int, on target: CTarget
) throws {
    let library = try CLibrary(model: model, weights: weights)
    let (folder, program) = try build(library, for: target)
    let expected = stream(of: model, windows: windows)
    let input =
        "windows \(expected.windows.count)\n"
        + expected.windows.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n")
    let lines = try run(program, input: input, in: folder, on: target, ram: library.ramBytes)
    let computed = lines.map { $0.split(separator: " ").compactMap { Float($0) } }
    let unknown = lines.map { $0.hasSuffix(" unknown") }
    let expectedUnknown = try #require(expected.unknown)
    #expect(computed.count == expected.probabilities.count)
    #expect(expectedUnknown.contains(true) && expectedUnknown.contains(false), "windows of both kinds")
    switch weights {
    case .float32:
        let difference = zip(computed.joined(), expected.probabilities.joined()).map { abs($0 - $1) }.max()!
        #expect(difference <= 1e-5, "on \(target)")
        #expect(unknown == expectedUnknown, "on \(target)")
    case .int8:
        let same = zip(computed, expected.probabilities).filter { argmax($0[...]) == argmax($1[...]) }.count
        let sameDecision = zip(unknown, expectedUnknown).filter { $0 == $1 }.count
        print(
            "int8 on \(target): the same class as GestureLab on \(same) of \(computed.count) windows, "
                + "the same decision on unknown motion on \(sameDecision)")
        #expect(Double(same) >= 0.99 * Double(computed.count), "\(same) of \(computed.count) on \(target)")
        #expect(Double(sameDecision) >= 0.95 * Double(computed.count), "\(sameDecision) on \(target)")
    }
}

/// Feeds `samples`, 25 a second, to the library's detector on `target` and to GestureLab's: the same
/// predictions (class, probability within 1e-5, unknown motion or not) and the same detections.
private func checkDetections(
    of samples: [[Float]], by model: GestureModel, on target: CTarget, detections least: Int = 3
) throws {
    let library = try CLibrary(model: model, weights: .float32, settings: detectionSettings)
    let (folder, program) = try build(library, for: target)
    let lines: [String] = samples.indices.map { index in
        "\(Double(index) / 25) " + samples[index].map { "\($0)" }.joined(separator: " ")
    }
    let input = "samples \(samples.count)\n" + lines.joined(separator: "\n")
    let computed = try run(program, input: input, in: folder, on: target, ram: library.ramBytes)
        .map { $0.split(separator: " ") }
    let expected = gestureLabPredictions(of: samples, by: model)
    #expect(computed.map { "\($0[1]) \($0[2]) \($0[4])" } == expected.map(\.label), "on \(target)")
    let difference = zip(computed, expected).map { abs((Double($0[3]) ?? 2) - $1.probability) }.max() ?? 1
    #expect(difference <= 1e-5, "on \(target)")
    let detections = expected.filter { $0.label.contains(" 1 ") }.count
    let unknown = expected.filter { $0.label.hasSuffix(" 1") }.count
    print(
        "\(target): \(computed.count) predictions, \(unknown) of them unknown motion, and \(detections) detections "
            + "as GestureLab's")
    #expect(detections >= least, "the stream has detections to compare: \(detections)")
    #expect(unknown >= 3, "the stream has unknown motion to compare: \(unknown)")
}

/// Sessions of each class of the interop model, one after another, at 25 Hz: it learned them a little.
private func syntheticSamples() -> [[Float]] {
    let sessions = SyntheticSessions(sessions: 6, totalSamples: 1_800, featureCount: 6, classCount: 3, seed: 9)
        .make()
    var samples: [[Float]] = []
    for session in sessions {
        for index in 0..<session.sampleCount {
            var sample = Array(session.features[index * 6..<(index + 1) * 6])
            for feature in 0..<6 { sample[feature] = sample[feature] * Float(1 + feature) + Float(feature) - 2 }
            samples.append(sample)
        }
    }
    return samples
}

/// GestureLab's detector on `samples`: each prediction's class, whether it is a detection and whether
/// it is unknown motion.
private func gestureLabPredictions(
    of samples: [[Float]], by model: GestureModel
) -> [(
    time: Double, label: String, probability: Double
)] {
    var detector = StreamingDetector(
        classifier: StreamingClassifier(model: model), window: model.windowing.window,
        featureCount: model.featureNames.count, settings: detectionSettings)
    return samples.enumerated().compactMap { index, sample in
        guard let prediction = detector.add(sample, at: Double(index) / 25) else { return nil }
        let detected = detector.detection(prediction) != nil
        return (
            prediction.time, "\(prediction.gesture) \(detected ? 1 : 0) \(prediction.isUnknown ? 1 : 0)",
            prediction.probability
        )
    }
}

/// The real watch recordings in Tests/Fixtures as `gesture record` makes them: each one's readings
/// (g, rad/s) at 25 Hz (every other of its 50 Hz) through the attitude filter, and its exercise.
private func watchRecordings() throws -> [(exercise: String, motion: [(DeviceMotion, RawSample)])] {
    let rows = try String(contentsOfFile: Fixtures.seglearnWatch, encoding: .utf8).split(separator: "\n").dropFirst()
        .map { $0.split(separator: ",") }
    let recordings = Dictionary(grouping: stride(from: 0, to: rows.count, by: 2).map { rows[$0] }, by: { $0[0] })
    return try recordings.keys.sorted().map { name in
        var filter = AttitudeFilter()
        let motion = try recordings[name]!.enumerated().map { index, row in
            let values = try row[4...].map { try #require(Double($0)) }
            let sample = RawSample(
                time: Double(index) / 25, acceleration: Vector3(values[0], values[1], values[2]),
                rotationRate: Vector3(values[3], values[4], values[5]))
            return (filter.update(sample), sample)
        }
        return (String(recordings[name]![0][3]), motion)
    }
}

/// The model's features of each reading.
private func features(of motion: [(DeviceMotion, RawSample)]) throws -> [[Float]] {
    let features = try interopModel.featureNames.map { try Feature(named: $0) }
    return motion.map { motion, sample in
        features.map {
            Float($0.value(motion: motion, acceleration: sample.acceleration, rotationRate: sample.rotationRate))
        }
    }
}

/// The watch recordings' features, one after another.
private func recordedFeatures() throws -> [[Float]] {
    try watchRecordings().flatMap { try features(of: $0.motion) }
}

/// A small model of the exercises, trained on the watch recordings' features: it detects them there.
private let recordedModel: GestureModel = {
    // The fixture is in the repository: reading it cannot fail.
    let recordings = try! watchRecordings()
    let classes = recordings.map(\.exercise).sorted()
    let sequences = try! recordings.map { recording in
        let rows = try features(of: recording.motion)
        return LabeledSequence(
            session: SessionID(rawValue: recording.exercise), user: try UserID("watch"), featureCount: rows[0].count,
            features: rows.flatMap { $0 },
            labels: Array(repeating: classes.firstIndex(of: recording.exercise)!, count: rows.count))
    }
    let description = ModelDescription(
        featureNames: interopModel.featureNames, windowing: Windowing(window: 20), samplingRate: 25,
        classNames: classes, layers: LayerSizes(convolutionFilters: 12, lstmUnits: 10, denseUnits: 8))
    let trainer = Trainer(model: description, options: TrainingOptions(epochs: 30, batchSize: 2, seed: 2))
    return try! trainer.train(sequences, validation: []).model
}()

/// The usage example's `read_sensor`: a line of a time, acceleration and rotation rate from standard input.
private let readSensor = """
    #include <stdio.h>

    int read_sensor(double *time, double acceleration[3], double rotation_rate[3]) {
        return scanf("%lf %lf %lf %lf %lf %lf %lf", time, &acceleration[0], &acceleration[1], &acceleration[2],
                     &rotation_rate[0], &rotation_rate[1], &rotation_rate[2]) == 7;
    }
    """

/// Prints each class name as the library holds it, each ended by a NUL.
private let printNames = """
    #include "gesture_model.h"
    #include <stdio.h>
    #include <string.h>

    int main(void) {
        int i;
        for (i = 0; i < GESTURE_CLASSES; i++)
            fwrite(gesture_class_names[i], 1, strlen(gesture_class_names[i]) + 1, stdout);
        return 0;
    }
    """

/// An untrained model of `interopModel`'s features whose classes are `names`.
private func modelNaming(
    _ names: [String], layers: LayerSizes = LayerSizes(convolutionFilters: 4, lstmUnits: 3, denseUnits: 2)
) -> GestureModel {
    let description = ModelDescription(
        featureNames: interopModel.featureNames, windowing: interopModel.windowing, samplingRate: 25,
        classNames: names, layers: layers)
    return GestureModel(untrained: description, normalization: interopModel.normalization, seed: 1)
}

/// The library alone, compiled for the Cortex-M4F.
private func cortexM4Sections(of library: CLibrary) throws -> LibrarySections {
    let folder = try folder(with: library)
    return try withExtendedLifetime(folder) { try CTarget.cortexM4.sections(ofLibraryIn: folder.path.string) }
}

/// The instructions one step of `program` executes on the Cortex-M4F, `macro` saying how many steps it takes.
private func cortexM4Instructions(of library: CLibrary, running program: String, macro: String) throws -> Int {
    let folder = try folder(with: library)
    return try withExtendedLifetime(folder) {
        try CTarget.cortexM4.instructionsPerStep(ofLibraryIn: folder.path.string, running: program, macro: macro)
    }
}

/// The watch recordings' raw readings at `rate` (25 or 50 Hz: every other, or every one), one
/// recording after another on one clock.
private func watchReadings(rate: Int) throws -> [RawSample] {
    let rows = try String(contentsOfFile: Fixtures.seglearnWatch, encoding: .utf8).split(separator: "\n").dropFirst()
        .map { $0.split(separator: ",") }
    let recordings = Dictionary(grouping: stride(from: 0, to: rows.count, by: 50 / rate).map { rows[$0] }) { $0[0] }
    return try recordings.keys.sorted().flatMap { recordings[$0]! }.enumerated().map { index, row in
        let values = try row[4...].map { try #require(Double($0)) }
        return RawSample(
            time: Double(index) / Double(rate), acceleration: Vector3(values[0], values[1], values[2]),
            rotationRate: Vector3(values[3], values[4], values[5]))
    }
}

/// A simulated person's two takes of a shake, recorded at 100 Hz as `gesture record` records them:
/// the raw columns of its rows.
private func simulatedReadings() async throws -> [RawSample] {
    let folder = try TemporaryFolder()
    try await recordFast(try plan(takes: 2), in: folder.recordings, rate: 100)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.recordings.root.string).filter {
        $0.hasSuffix(".csv")
    }
    let rows = try readRows(folder.recordings.root.appending(try #require(files.first)))
    #expect(rows.count > 200)
    return rows.enumerated().map { index, row in
        RawSample(time: Double(index) / 100, acceleration: row.rawAcceleration, rotationRate: row.rawRotationRate)
    }
}

/// Lines of a time, acceleration and rotation rate, as the check program and `read_sensor` read them.
private func readingLines(_ readings: [RawSample]) -> String {
    readings.map { reading in
        let a = reading.acceleration, g = reading.rotationRate
        return [reading.time, a.x, a.y, a.z, g.x, g.y, g.z].map { "\($0)" }.joined(separator: " ")
    }.joined(separator: "\n")
}

/// GestureLab's live path on raw `readings` at `rate`: the features of each reading the model takes,
/// and each prediction's class, whether it is a detection and whether unknown motion, its probability,
/// and the detections.
private func gestureLabRun(
    of readings: [RawSample], rate: Double, settings: DetectionSettings = detectionSettings
) throws -> (features: [[Float]], labels: [String], probabilities: [Double], detections: [Prediction]) {
    var live = try LiveFeatures(names: recordedModel.featureNames)
    let keepEvery = try RateMatch(sensorRate: rate, modelRate: recordedModel.samplingRate).keepEvery
    let features = readings.enumerated().compactMap { index, reading in
        let values = live.values(of: reading)
        return (index + 1) % keepEvery == 0 ? values : nil
    }
    var detector = try LiveDetector(model: recordedModel, sensorRate: rate, settings: settings)
    var labels: [String] = [], probabilities: [Double] = [], detections: [Prediction] = []
    for reading in readings {
        let (prediction, detection) = detector.add(reading)
        guard let prediction else { continue }
        labels.append("\(prediction.gesture) \(detection == nil ? 0 : 1) \(prediction.isUnknown ? 1 : 0)")
        probabilities.append(prediction.probability)
        if let detection { detections.append(detection) }
    }
    return (features, labels, probabilities, detections)
}

/// Feeds raw `readings` at `rate` to the library's board on `target` and to GestureLab's live path:
/// features within 1e-5, the same predictions (class, probability within 1e-5, unknown motion or
/// not) and detections, with rejection (at least `unknown` windows rejected) and without it (at
/// least `detections` detections: rejection leaves the trained model few of them here).
private func checkBoard(
    readings: [RawSample], rate: Double, on target: CTarget, detections: Int, unknown: Int
) throws {
    var withoutRejection = detectionSettings
    withoutRejection.reject = false
    for settings in [detectionSettings, withoutRejection] {
        let found = try checkBoard(readings: readings, rate: rate, on: target, settings: settings)
        #expect(found.unknown >= (settings.reject ? unknown : 0), "the readings have unknown motion to compare")
        #expect(found.unknown == 0 || settings.reject)
        #expect(found.detections >= (settings.reject ? 0 : detections), "the readings have detections to compare")
    }
}

/// `checkBoard` with `settings`: how many windows GestureLab rejected, and how many detections it made.
private func checkBoard(
    readings: [RawSample], rate: Double, on target: CTarget, settings: DetectionSettings
) throws -> (unknown: Int, detections: Int) {
    let library = try CLibrary(model: recordedModel, weights: .float32, settings: settings)
    let (folder, program) = try build(library, for: target)
    let input = "readings \(readings.count) \(rate)\n" + readingLines(readings)
    let lines = try run(program, input: input, in: folder, on: target, ram: library.ramBytes)
        .map { $0.split(separator: " ") }
    let expected = try gestureLabRun(of: readings, rate: rate, settings: settings)
    let features = lines.filter { $0[0] == "f" }.map { $0.dropFirst().compactMap { Float($0) } }
    #expect(features.count == expected.features.count, "on \(target)")
    let difference = zip(features.joined(), expected.features.joined()).map { abs($0 - $1) }.max() ?? 1
    print("\(target): \(features.count) readings' features within \(difference) of GestureLab's")
    #expect(difference <= 1e-5, "on \(target)")
    let predictions = lines.filter { $0[0] == "p" }
    #expect(predictions.map { "\($0[2]) \($0[3]) \($0[5])" } == expected.labels, "on \(target)")
    let probabilities = zip(predictions, expected.probabilities).map { abs((Double($0[4]) ?? 2) - $1) }
    #expect((probabilities.max() ?? 1) <= 1e-5, "on \(target)")
    let unknown = expected.labels.count { $0.hasSuffix(" 1") }
    print(
        "\(target): \(predictions.count) predictions, \(unknown) of them unknown motion, "
            + "\(expected.detections.count) detections as GestureLab's, rejection \(settings.reject ? "on" : "off")")
    return (unknown, expected.detections.count)
}
