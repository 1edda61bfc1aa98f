import Foundation
import GestureInterop
import GestureLearning

/// ONNX Runtime streaming the same model, exported, over the same samples
/// (Peers/onnxruntime_predict_speed.py): the peer `predict-speed` runs between its own rounds where
/// a Python that imports onnxruntime is found. One process for the whole run, told each round's
/// count on its standard input.
final class ONNXRuntimePeer {
    let python: String
    let version: String
    private let folder: URL
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var received = Data()

    /// The first of `pythons` that imports onnxruntime, started on `model` and `stream`; nil if none does.
    init?(pythons: [String], model: GestureModel, stream: [Float]) throws {
        guard let (python, version) = firstPython(among: pythons, importing: "onnxruntime") else { return nil }
        self.python = python
        self.version = version
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-onnx-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let modelFile = folder.appendingPathComponent("model.onnx"),
            streamFile = folder.appendingPathComponent("stream.f32")
        try Data(ONNXExport(model: model).serialized()).write(to: modelFile)
        try stream.withUnsafeBytes { Data($0) }.write(to: streamFile)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            python, peerScript("onnxruntime_predict_speed.py").path, modelFile.path, streamFile.path,
            "\(model.windowing.window)", "\(model.featureNames.count)",
        ]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Makes `count` predictions and returns once they are made.
    func predict(_ count: Int) throws {
        input.fileHandleForWriting.write(Data("\(count)\n".utf8))
        guard try nextLine() == "done" else { throw PeerFailure(command: python) }
    }

    /// Ends the process: its median and 99th percentile, in microseconds.
    func finish() throws -> (median: Double, p99: Double) {
        try input.fileHandleForWriting.close()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fields = try nextLine().split(separator: " ")
        process.waitUntilExit()
        guard fields.count == 4, let median = Double(fields[1]), let p99 = Double(fields[3]) else {
            throw PeerFailure(command: python)
        }
        return (median, p99)
    }

    private func nextLine() throws -> String {
        while true {
            if let end = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[..<end], as: UTF8.self)
                received.removeSubrange(...end)
                return line
            }
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw PeerFailure(command: python) }
            received.append(more)
        }
    }
}
