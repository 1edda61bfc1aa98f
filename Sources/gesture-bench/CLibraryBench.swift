import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureInterop
import GestureLearning
import GestureScenarios
import GestureStore
import GestureTargets
import GestureTraining

import struct SystemPackage.FilePath

struct CLibraryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "c-library",
        abstract: """
            The exported C library on this machine, aarch64 Linux and a Cortex-M4F, in float32 and int8: \
            accuracy against GestureLab, flash, RAM and instructions per prediction.
            """,
        discussion: """
            Without --model, records the simulated crowd (six people, shake, chop and drive, 5 takes each at 25 \
            Hz) and trains as `gesture train` and `gesture train --size board` train on five people, scoring the \
            sixth. For each model, exports it as `gesture export --format c` does, in float32 and in int8, and on each \
            target (this machine, aarch64 Linux under qemu-aarch64, a Cortex-M4F on qemu-system-arm's mps2-an386, \
            built as the tests build them) streams every session's windows through it (the state reset at each \
            session) and through GestureLab's streaming classifier: the window accuracy and the share of windows \
            whose class is GestureLab's. Flash: the library's code and constants (binutils' size); RAM: its data \
            and bss, sizeof the detector on the target and the stack of a prediction (-fstack-usage). Instructions \
            per prediction, and the front end's per reading on the Cortex-M4F, are counted by QEMU, which logs \
            each instruction (this machine's programs run in qemu-x86_64 for it). A target whose compiler or \
            QEMU is missing is skipped with a line naming the Debian packages.
            """)

    @Option(
        name: .customLong("model"),
        help: """
            A model file, repeatable: e.g. `gesture train`'s and `gesture train --size board`'s (default: both \
            trained on the simulated crowd).
            """)
    var models: [String] = []
    @Option(help: "With --model: the recordings folder.") var recordings = "recordings"
    @Option(help: "With --model: a manifest from `gesture split`, whose test part is scored (default: every session).")
    var test: String?
    @Option(help: "Without --model: epochs of training (`gesture train`'s default: 30).") var epochs = 30

    func run() async throws {
        print("CPU: \(cpuModel())")
        let targets = CTarget.all.filter(\.isInstalled)
        for target in CTarget.all where !target.isInstalled { print("\(target): skipped, \(target.missing)") }
        for target in targets where !target.countsInstructions {
            print("\(target): no instructions counted, needs qemu-user (scripts/setup --tests installs it)")
        }
        let scored = models.isEmpty ? try await trainedOnTheSimulatedCrowd() : try models.map(loaded)
        for (name, model, sessions) in scored {
            let reference = sessions.map { $0.streamed(through: StreamingClassifier(model: model)) }
            let layers = model.architecture
            print(
                "\n\(name): layers \(layers.convolutionFilters)/\(layers.lstmUnits)/\(layers.denseUnits), "
                    + "\(sessions.count) sessions, \(sessions.map(\.labels.count).reduce(0, +)) windows; "
                    + String(format: "GestureLab: window accuracy %.4f", accuracy(reference, sessions)))
            print(TargetFigures.heading)
            for weights in CLibrary.Weights.allCases {
                let library = try CLibrary(model: model, weights: weights)
                for target in targets {
                    let figures = try measure(library, on: target, sessions: sessions, reference: reference)
                    print(figures.row(weights: weights, target: target))
                }
            }
            if let frontEnd = try frontEndInstructions(of: model) {
                print("Cortex-M4F: \(frontEnd) instructions per reading through the front end")
            }
        }
    }

    /// The model in `path`, and the sessions of --recordings (--test's) it is scored on.
    private func loaded(_ path: String) throws -> ScoredModel {
        let model = try GestureModel(contentsOf: path)
        let data = try ExperimentData(
            folder: RecordingsFolder(FilePath(recordings)), manifest: test, gestures: [], rate: model.samplingRate,
            usingTestPart: test != nil)
        return (URL(fileURLWithPath: path).lastPathComponent, model, try sessions(of: data.training, for: model))
    }

    /// The book-sized and the board-sized model trained on five of the simulated crowd, with the sixth's sessions.
    private func trainedOnTheSimulatedCrowd() async throws -> [ScoredModel] {
        let folder = FilePath(
            FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-c-library-\(getpid())").path)
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        let crowd = try AccuracyBench.simulatedCrowd.map { name throws in try UserID(name) }
        _ = try await FaultyRecordings(
            users: crowd, gestures: [.shake, .chop, .drive], takes: 5, faultRate: 0, rate: 25
        )
        .record(into: RecordingsFolder(folder))
        let data = try DatasetLoader(folder: RecordingsFolder(folder)).load()
        let training = try SessionSelection(users: Array(crowd.dropLast())).apply(to: data)
        let test = try SessionSelection(users: [crowd.last!]).apply(to: data)
        return try [("book-sized", LayerSizes()), ("board-sized", LayerSizes.board)].map { name, layers in
            let experiment = try Experiment(
                name: "c-library", features: TrainingData.bookFeatures, window: 20, layers: layers,
                training: training, augmentation: AugmentationPlan([]), options: TrainingOptions(epochs: epochs),
                validation: nil, test: nil)
            let model = try experiment.train(seed: 1).model
            return (name, model, try sessions(of: test, for: model))
        }
    }

    private func sessions(of dataset: Dataset, for model: GestureModel) throws -> [SessionWindows] {
        let features = try model.featureNames.map { name throws(UnknownFeature) in try Feature(named: name) }
        let sequences = try TrainingData(dataset: dataset, features: features, classNames: model.classNames)
            .sequences
        return sequences.map { SessionWindows($0, model: model) }.filter { !$0.windows.isEmpty }
    }

    private func measure(
        _ library: CLibrary, on target: CTarget, sessions: [SessionWindows], reference: [[[Float]]]
    ) throws -> TargetFigures {
        let folder = try BuildFolder()
        try library.write(into: folder.path, main: CLibrary.checkProgram)
        let program = try target.compile(["main.c", CLibrary.sourceName], in: folder.path)
        let runs = try sessions.map { try $0.streamed(throughProgram: program, on: target, in: folder.path) }
        let computed = runs.map(\.probabilities)
        let agreement = zip(computed.joined(), reference.joined()).filter { argmax($0) == argmax($1) }.count
        let sections = try target.sections(ofLibraryIn: folder.path)
        let instructions =
            target.countsInstructions
            ? try target.instructionsPerStep(
                ofLibraryIn: folder.path, running: CLibrary.predictionsProgram, macro: "PREDICTIONS") : nil
        return TargetFigures(
            accuracy: accuracy(computed, sessions), agreement: Double(agreement) / Double(reference.joined().count),
            flash: sections.text, ram: sections.ram + (runs.map(\.detectorBytes).max() ?? 0) + sections.stack,
            instructions: instructions)
    }

    /// The front end's instructions per reading on the Cortex-M4F: none without its toolchain.
    private func frontEndInstructions(of model: GestureModel) throws -> Int? {
        guard CTarget.cortexM4.isInstalled else { return nil }
        let folder = try BuildFolder()
        try CLibrary(model: model, weights: .float32).write(into: folder.path)
        return try CTarget.cortexM4.instructionsPerStep(
            ofLibraryIn: folder.path, running: CLibrary.readingsProgram, macro: "READINGS")
    }

    private func accuracy(_ predictions: [[[Float]]], _ sessions: [SessionWindows]) -> Double {
        let right = zip(predictions, sessions).map { predicted, session in
            zip(predicted, session.labels).filter { argmax($0) == $1 }.count
        }
        return Double(right.reduce(0, +)) / Double(sessions.map(\.labels.count).reduce(0, +))
    }
}

/// A model's name, the model, and the sessions it is scored on.
private typealias ScoredModel = (name: String, model: GestureModel, sessions: [SessionWindows])

/// One library's figures on one target.
private struct TargetFigures {
    var accuracy: Double
    var agreement: Double
    var flash: Int
    var ram: Int
    var instructions: Int?

    static let heading =
        "weights  target          window accuracy  same class as GestureLab  flash bytes  RAM bytes  instructions/prediction"

    func row(weights: CLibrary.Weights, target: CTarget) -> String {
        let counted = instructions.map(String.init) ?? "-"
        return weights.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            + target.description.padding(toLength: 14, withPad: " ", startingAt: 0)
            + String(format: "  %15.4f  %24.4f  %11d  %9d  ", accuracy, agreement, flash, ram)
            + String(repeating: " ", count: max(0, 23 - counted.count)) + counted
    }
}

/// A temporary folder, removed with its last reference.
private final class BuildFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("c-library-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A session's whole windows, each with its label.
private struct SessionWindows {
    var windows: [[Float]]
    var labels: [Int]

    init(_ sequence: LabeledSequence, model: GestureModel) {
        let window = model.windowing.window, size = model.architecture.windowSize
        let count = sequence.sampleCount / window
        windows = (0..<count).map { Array(sequence.features[$0 * size..<($0 + 1) * size]) }
        labels = Array(
            model.windowing.windowLabels(sequence.labels, classCount: model.classNames.count).prefix(count))
    }

    func streamed(through classifier: StreamingClassifier) -> [[Float]] {
        var state = classifier.initialState
        return windows.map { classifier.step($0, state: &state) }
    }

    /// The check program's probabilities of each window on `target`, and the `sizes` it ends with.
    func streamed(
        throughProgram program: String, on target: CTarget, in folder: String
    ) throws -> (probabilities: [[Float]], detectorBytes: Int) {
        let text =
            "windows \(windows.count)\n"
            + windows.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n") + "\n"
        let input = "\(folder)/input.txt"
        try text.write(toFile: input, atomically: false, encoding: .utf8)
        let lines = try target.run(program, input: input, in: folder).split(separator: "\n")
        guard let sizes = lines.last, sizes.hasPrefix("sizes "), let bytes = Int(sizes.dropFirst(6)) else {
            throw ValidationError("\(target): the check program ended without its sizes")
        }
        return (lines.dropLast().map { $0.split(separator: " ").compactMap { Float($0) } }, bytes)
    }
}

private func argmax(_ values: [Float]) -> Int {
    values.indices.max { values[$0] < values[$1] } ?? 0
}
