import ArgumentParser
import Foundation
import GestureCore
import GestureInterop
import GestureLearning
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

struct CLibraryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "c-library",
        abstract:
            "The exported C library against GestureLab on recorded sessions: window accuracy in float32 and int8.",
        discussion: """
            Exports the model as `gesture export --format c` does, compiles it with cc -O2 and the check program, \
            streams every session's windows through it (the state reset at each session) and through GestureLab's \
            streaming classifier, and prints each one's window accuracy, the flash and the RAM.
            """)

    @Option(help: "The model file.") var model: String
    @Option(help: "The recordings folder.") var recordings = "recordings"
    @Option(help: "A manifest from `gesture split`: its test part is scored (default: every session).")
    var test: String?

    func run() throws {
        let loaded = try GestureModel(contentsOf: model)
        let data = try ExperimentData(
            folder: RecordingsFolder(FilePath(recordings)), manifest: test, gestures: [], rate: loaded.samplingRate,
            usingTestPart: test != nil)
        let features = try loaded.featureNames.map { name throws(UnknownFeature) in try Feature(named: name) }
        let sequences = try TrainingData(dataset: data.training, features: features, classNames: loaded.classNames)
            .sequences
        let sessions = sequences.map { SessionWindows($0, model: loaded) }.filter { !$0.windows.isEmpty }
        let windows = sessions.map(\.labels.count).reduce(0, +)
        print("\(model): \(sessions.count) sessions, \(windows) windows")
        let reference = sessions.map { $0.streamed(through: StreamingClassifier(model: loaded)) }
        print(String(format: "GestureLab: window accuracy %.4f", accuracy(reference, sessions)))
        for weights in CLibrary.Weights.allCases {
            let library = try CLibrary(model: loaded, weights: weights)
            let folder = try compile(library)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let computed = try sessions.map { try $0.streamed(throughProgram: "\(folder)/program") }
            let agreement = zip(computed.joined(), reference.joined()).filter { argmax($0) == argmax($1) }.count
            print(
                "C \(weights.rawValue): "
                    + String(
                        format: "window accuracy %.4f, the same class as GestureLab on %.4f of windows; ",
                        accuracy(computed, sessions), Double(agreement) / Double(windows))
                    + "flash \(library.flashBytes) bytes, RAM at most \(library.ramBytes) bytes")
        }
    }

    private func compile(_ library: CLibrary) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("c-library-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try library.header.write(toFile: "\(folder)/\(CLibrary.headerName)", atomically: true, encoding: .utf8)
        try library.source.write(toFile: "\(folder)/\(CLibrary.sourceName)", atomically: true, encoding: .utf8)
        try CLibrary.checkProgram.write(toFile: "\(folder)/main.c", atomically: true, encoding: .utf8)
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        compiler.arguments = ["-std=c99", "-O2", "main.c", CLibrary.sourceName, "-lm", "-o", "program"]
        compiler.currentDirectoryURL = URL(fileURLWithPath: folder)
        try compiler.run()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else { throw ValidationError("cc failed in \(folder)") }
        return folder
    }

    private func accuracy(_ predictions: [[[Float]]], _ sessions: [SessionWindows]) -> Double {
        let right = zip(predictions, sessions).map { predicted, session in
            zip(predicted, session.labels).filter { argmax($0) == $1 }.count
        }
        return Double(right.reduce(0, +)) / Double(sessions.map(\.labels.count).reduce(0, +))
    }
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

    func streamed(throughProgram program: String) throws -> [[Float]] {
        let text =
            "windows \(windows.count)\n"
            + windows.map { $0.map { "\($0)" }.joined(separator: " ") }
            .joined(separator: "\n") + "\n"
        let inputPath = program + ".input"
        try text.write(toFile: inputPath, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        let output = Pipe()
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return printed.split(separator: "\n").filter { !$0.hasPrefix("sizes") }.map {
            $0.split(separator: " ").compactMap { Float($0) }
        }
    }
}

private func argmax(_ values: [Float]) -> Int {
    values.indices.max { values[$0] < values[$1] } ?? 0
}
