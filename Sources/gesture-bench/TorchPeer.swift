import Foundation
import GestureLearning

/// PyTorch training the same model on the same sessions (Peers/torch_train_speed.py): the peer
/// `train-speed` runs in its rounds where a Python that imports torch is found.
struct TorchPeer {
    let python: String
    let version: String
    /// Where the sessions are written for the script.
    private let folder: URL
    private let script: URL

    /// The first of `pythons` that imports torch, with `sessions` written for it; nil if none does.
    init?(pythons: [String], sessions: [LabeledSequence], shape: LearningBenchOptions, batch: Int) throws {
        guard let (python, version) = firstPython(among: pythons, importing: "torch") else { return nil }
        self.python = python
        self.version = version
        script = peerScript("torch_train_speed.py")
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-torch-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try write(sessions, shape: shape, batch: batch)
    }

    /// Each epoch's seconds, training with `threads` threads.
    func epochSeconds(threads: Int, epochs: Int) throws -> [Double] {
        let output = try peerOutput(
            of: python, [script.path, "--data", folder.path, "--threads", "\(threads)", "--epochs", "\(epochs)"])
        return output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 4 && fields[0] == "epoch" ? Double(fields[2]) : nil
        }
    }

    func removeData() { try? FileManager.default.removeItem(at: folder) }

    private func write(_ sessions: [LabeledSequence], shape: LearningBenchOptions, batch: Int) throws {
        let layout: [String: Any] = [
            "features": shape.features, "classes": shape.classes, "window": shape.window,
            "chunk": Windowing(window: shape.window).windowsPerChunk, "batch": batch, "filters": shape.convFilters,
            "units": shape.lstmUnits, "dense": shape.denseUnits, "lengths": sessions.map(\.sampleCount),
            "labels": sessions.map { $0.labels.first ?? 0 },
        ]
        try JSONSerialization.data(withJSONObject: layout).write(to: folder.appendingPathComponent("sessions.json"))
        let features = sessions.flatMap(\.features)
        try features.withUnsafeBytes { Data($0) }.write(to: folder.appendingPathComponent("features.f32"))
    }
}
