import Foundation
import GestureCore
import GestureLearning
import GestureLive
import GestureMotion
import GestureTestSupport
import Testing

@testable import GestureInterop

/// The exported C library, compiled by real C compilers with every warning an error, for this machine,
/// aarch64 Linux and a Cortex-M4F (run in QEMU), and fed the same windows and samples as GestureLab.
@Suite struct CLibraryTests {
    @Test(arguments: [CLibrary.Weights.float32, .int8])
    func theLibraryPredictsWhatGestureLabPredicts(weights: CLibrary.Weights) throws {
        try checkPredictions(weights: weights, windows: 200, on: .host)
    }

    @Test func theDetectorFindsWhatGestureLabsDetectorFinds() throws {
        // Sessions of each class, one after another, at 25 Hz: the model learned them a little.
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
        try checkDetections(of: samples, by: interopModel, on: .host)
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .host)
    }

    @Test(.enabled(if: CTarget.aarch64.isInstalled, CTarget.aarch64.missing))
    func onAarch64LinuxTheLibraryPredictsAndDetectsAsGestureLab() throws {
        for weights in CLibrary.Weights.allCases { try checkPredictions(weights: weights, windows: 200, on: .aarch64) }
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .aarch64)
    }

    @Test(.enabled(if: CTarget.cortexM4.isInstalled, CTarget.cortexM4.missing))
    func onACortexM4FTheLibraryPredictsAndDetectsAsGestureLab() throws {
        for weights in CLibrary.Weights.allCases { try checkPredictions(weights: weights, windows: 200, on: .cortexM4) }
        try checkDetections(of: try recordedFeatures(), by: recordedModel, on: .cortexM4)
        let book = LayerSizes(convolutionFilters: 64, lstmUnits: 200, denseUnits: 128)
        let board = LayerSizes(convolutionFilters: 16, lstmUnits: 32, denseUnits: 32)
        for (name, layers) in [("book-sized", book), ("board-sized", board)] {
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
                let instructions = try cortexM4InstructionsPerPrediction(of: library)
                print("Cortex-M4F, \(name) \(weights): \(instructions) instructions per prediction")
                #expect(instructions > 0 && instructions <= 64_000_000 / 25, "25 a second at 64 MHz")
            }
        }
    }

    @Test func theHeadersUsageExampleRunsAndDetectsWhatGestureLabDetects() throws {
        let library = try CLibrary(model: recordedModel, weights: .float32, settings: detectionSettings)
        let folder = try folder(with: library, main: CLibrary.usageExample)
        let path = folder.path.string
        try readFeatures.write(toFile: "\(path)/features.c", atomically: true, encoding: .utf8)
        let example = CLibrary.usageExample.split(separator: "\n")
        #expect(example.allSatisfy { library.header.contains("     \($0)\n") }, "the header shows the example")
        let program = try CTarget.host.compile(["main.c", "features.c", CLibrary.sourceName], in: folder)
        let samples = try recordedFeatures()
        let input = samples.indices.map { index in
            "\(Double(index) / 25) " + samples[index].map { "\($0)" }.joined(separator: " ")
        }
        try input.joined(separator: "\n").write(toFile: "\(path)/input.txt", atomically: true, encoding: .utf8)
        let output = try CTarget.host.run(program, input: "\(path)/input.txt", in: folder).succeeded().output
        let detected = output.split(separator: "\n").map { $0.split(separator: " ")[0...1].joined(separator: " ") }
        let expected = gestureLabPredictions(of: samples, by: recordedModel).filter { $0.label.hasSuffix(" 1") }.map {
            prediction in
            String(format: "%.2f", prediction.time) + " " + prediction.label.dropLast(2)
        }
        #expect(!expected.isEmpty && detected == expected)
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
        let program = try CTarget.host.compile(["main.c", CLibrary.sourceName], in: folder)
        try "".write(toFile: "\(path)/input.txt", atomically: true, encoding: .utf8)
        let output = try CTarget.host.run(program, input: "\(path)/input.txt", in: folder).succeeded().output
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

/// The C library does not carry the model's rejection (yet): GestureLab's detector runs without it too.
private let detectionSettings = DetectionSettings(
    offset: 5, threshold: 0.4, cooldown: 1.5, averaging: 2, rest: "rest", reject: false)

/// A new folder holding the library's two files and, as `main.c`, `program`.
private func folder(with library: CLibrary, main program: String = "") throws -> TemporaryFolder {
    let folder = try TemporaryFolder()
    let files = [CLibrary.headerName: library.header, CLibrary.sourceName: library.source, "main.c": program]
    for (name, text) in files {
        try text.write(toFile: folder.path.appending(name).string, atomically: true, encoding: .utf8)
    }
    return folder
}

/// Writes `library` and the check program into a new folder and compiles them for `target`.
private func build(_ library: CLibrary, for target: CTarget) throws -> (TemporaryFolder, String) {
    let folder = try folder(with: library, main: CLibrary.checkProgram)
    return (folder, try target.compile(["main.c", CLibrary.sourceName], in: folder))
}

/// The check program's lines for `input`, but the last: "sizes", checked against the RAM reported.
private func run(
    _ program: String, input: String, in folder: TemporaryFolder, on target: CTarget, ram: Int
) throws
    -> [Substring]
{
    let inputPath = folder.path.appending("input.txt").string
    try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
    let lines = try target.run(program, input: inputPath, in: folder).succeeded().output.split(separator: "\n")
    let sizes = try #require(lines.last.flatMap { Int($0.split(separator: " ")[1]) }, "\(lines.suffix(1))")
    #expect(sizes <= ram, "sizeof the detector on \(target)")
    return lines.dropLast()
}

/// Streams `windows` random windows through the library on `target` and through GestureLab.
private func checkPredictions(weights: CLibrary.Weights, windows: Int, on target: CTarget) throws {
    let library = try CLibrary(model: interopModel, weights: weights)
    let (folder, program) = try build(library, for: target)
    let expected = stream(of: interopModel, windows: windows)
    let input =
        "windows \(expected.windows.count)\n"
        + expected.windows.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n")
    let lines = try run(program, input: input, in: folder, on: target, ram: library.ramBytes)
    let computed = lines.map { $0.split(separator: " ").compactMap { Float($0) } }
    #expect(computed.count == expected.probabilities.count)
    switch weights {
    case .float32:
        let difference = zip(computed.joined(), expected.probabilities.joined()).map { abs($0 - $1) }.max()!
        #expect(difference <= 1e-5, "on \(target)")
    case .int8:
        let same = zip(computed, expected.probabilities).filter { argmax($0[...]) == argmax($1[...]) }.count
        print("int8 on \(target): the same class as GestureLab on \(same) of \(computed.count) windows")
        #expect(Double(same) >= 0.99 * Double(computed.count), "\(same) of \(computed.count) on \(target)")
    }
}

/// Feeds `samples`, 25 a second, to the library's detector on `target` and to GestureLab's: the same
/// predictions (class, probability within 1e-5) and the same detections.
private func checkDetections(of samples: [[Float]], by model: GestureModel, on target: CTarget) throws {
    let library = try CLibrary(model: model, weights: .float32, settings: detectionSettings)
    let (folder, program) = try build(library, for: target)
    let lines: [String] = samples.indices.map { index in
        "\(Double(index) / 25) " + samples[index].map { "\($0)" }.joined(separator: " ")
    }
    let input = "samples \(samples.count)\n" + lines.joined(separator: "\n")
    let computed = try run(program, input: input, in: folder, on: target, ram: library.ramBytes)
        .map { $0.split(separator: " ") }
    let expected = gestureLabPredictions(of: samples, by: model)
    #expect(computed.map { "\($0[1]) \($0[2])" } == expected.map(\.label), "on \(target)")
    let difference = zip(computed, expected).map { abs((Double($0[3]) ?? 2) - $1.probability) }.max() ?? 1
    #expect(difference <= 1e-5, "on \(target)")
    let detections = expected.filter { $0.label.hasSuffix(" 1") }.count
    print("\(target): \(computed.count) predictions and \(detections) detections as GestureLab's")
    #expect(detections >= 3, "the stream has detections to compare: \(detections)")
}

/// GestureLab's detector on `samples`: each prediction's class and whether it is a detection.
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
        return (prediction.time, "\(prediction.gesture) \(detected ? 1 : 0)", prediction.probability)
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

/// The usage example's `read_features`: a line of a time and the features from standard input.
private let readFeatures = """
    #include "gesture_model.h"
    #include <stdio.h>

    int read_features(float *features, double *time) {
        int i;
        if (scanf("%lf", time) != 1) return 0;
        for (i = 0; i < GESTURE_FEATURES; i++)
            if (scanf("%f", &features[i]) != 1) return 0;
        return 1;
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

/// The library alone, compiled for the Cortex-M4F: its code and constants (flash), its data and bss
/// (RAM), and the stack of a prediction: `gesture_detector_add`, `gesture_predict` and the largest
/// function they call, by the compiler's count.
private func cortexM4Sections(of library: CLibrary) throws -> (text: Int, ram: Int, stack: Int) {
    let folder = try folder(with: library)
    try CTarget.cortexM4.compile([CLibrary.sourceName], in: folder, object: true)
    let size = try runGesture(["program"], in: folder.path, executable: "/usr/bin/arm-none-eabi-size").succeeded()
    // "text data bss dec hex filename", then the numbers.
    let numbers = size.output.split(separator: "\n")[1].split(whereSeparator: \.isWhitespace).prefix(3).compactMap {
        Int($0)
    }
    // "file:line:column:function bytes static", a line each.
    let usage = try String(contentsOfFile: folder.path.appending("program.su").string, encoding: .utf8)
        .split(separator: "\n").map { $0.split(whereSeparator: \.isWhitespace) }
    var stack = Dictionary(uniqueKeysWithValues: usage.map { (String($0[0].split(separator: ":")[3]), Int($0[1])!) })
    let chain = ["gesture_detector_add", "gesture_predict"].compactMap { stack.removeValue(forKey: $0) }
    #expect(chain.count == 2, "\(usage)")
    return (numbers[0], numbers[1] + numbers[2], chain.reduce(0, +) + (stack.values.max() ?? 0))
}

/// Makes `PREDICTIONS` streamed predictions.
private let predictions = """
    #include "gesture_model.h"

    int main(void) {
        static float window[GESTURE_WINDOW * GESTURE_FEATURES];
        float probabilities[GESTURE_CLASSES] = {0};
        gesture_state state;
        int k;
        gesture_state_reset(&state);
        for (k = 0; k < PREDICTIONS; k++) gesture_predict(window, &state, probabilities);
        return probabilities[0] >= 0 ? 0 : 1;
    }
    """

/// The instructions one `gesture_predict` executes on the Cortex-M4F: QEMU, one instruction at a
/// time, logs each; a program making two predictions against one making none.
private func cortexM4InstructionsPerPrediction(of library: CLibrary) throws -> Int {
    let counts = try [0, 2].map { count in
        let folder = try folder(with: library, main: predictions)
        let program = try CTarget.cortexM4.compile(
            ["-DPREDICTIONS=\(count)", "main.c", CLibrary.sourceName], in: folder)
        let log = folder.path.appending("trace.log").string
        try "".write(toFile: folder.path.appending("input.txt").string, atomically: true, encoding: .utf8)
        try CTarget.cortexM4.run(
            program, input: folder.path.appending("input.txt").string, in: folder,
            options: ["-singlestep", "-d", "exec,nochain", "-D", log]
        ).succeeded()
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            .count { $0.hasPrefix("Trace") }
    }
    return (counts[1] - counts[0]) / 2
}
