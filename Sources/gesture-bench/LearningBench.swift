import ArgumentParser
import Foundation
import GestureLearning

/// The options both learning benchmarks share.
struct LearningBenchOptions: ParsableArguments {
    @Option(help: "Sessions in the synthetic set.")
    var sessions = 216

    @Option(help: "Samples in all sessions together.")
    var samples = 235_057

    @Option(help: "Features per sample.")
    var features = 6

    @Option(help: "Classes.")
    var classes = 4

    @Option(help: "Samples per prediction window.")
    var window = 20

    @Option(help: "The convolution's filters.") var convFilters = LayerSizes().convolutionFilters
    @Option(help: "The LSTM's units.") var lstmUnits = LayerSizes().lstmUnits
    @Option(help: "The dense layer's units.") var denseUnits = LayerSizes().denseUnits

    @Option(help: "A temporal convolution's filters (`gesture train --architecture temporal`); 0 for none.")
    var temporalFilters = 0

    @Option(help: "The samples each temporal filter spans.")
    var temporalKernel = LayerSizes().temporalKernel

    @Flag(help: "Keep the kernels OpenBLAS picks itself, instead of its AVX-512 ones where the CPU has AVX-512.")
    var defaultKernels = false

    @Flag(help: "Every matrix product through OpenBLAS, none through GestureLab's own AVX-512 kernel.")
    var openblasOnly = false

    /// Chooses the kernels, before the first product loads OpenBLAS.
    func prepareKernels() {
        if openblasOnly { setenv("GESTURELAB_KERNELS", ProductKernels.openblas.rawValue, 1) }
        if defaultKernels { setenv("GESTURELAB_OPENBLAS_AUTODETECT", "1", 1) }
    }

    var description: ModelDescription {
        ModelDescription(
            featureNames: (1...features).map { "f\($0)" }, windowing: Windowing(window: window),
            samplingRate: 25, classNames: (1...classes).map { "class\($0)" },
            layers: LayerSizes(
                convolutionFilters: convFilters, lstmUnits: lstmUnits, denseUnits: denseUnits,
                temporalFilters: temporalFilters, temporalKernel: temporalKernel))
    }

    func sessionsShapedLikeTheBook() -> [LabeledSequence] {
        SyntheticSessions(sessions: sessions, totalSamples: samples, featureCount: features, classCount: classes).make()
    }
}

struct TrainSpeedBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train-speed",
        abstract:
            "Seconds per training epoch on a synthetic set shaped like Machine Learning by Tutorials' (216 sessions, 235,057 samples)."
    )

    @OptionGroup var shape: LearningBenchOptions

    @Option(help: "Chunks per batch.")
    var batch = 32

    @Option(help: "Epochs to time in each round; the figures are the median over every round.")
    var epochs = 5

    @Option(parsing: .upToNextOption, help: "Thread counts to train with, one after another in each round.")
    var threads = [1, TrainingOptions.availableThreads]

    @Option(help: "Rounds: each trains once with every thread count.")
    var rounds = 3

    @Option(
        parsing: .upToNextOption,
        help: "Pythons to look for PyTorch in; the first that imports torch trains the same model in each round.")
    var torchPython = [".cache/peers/bin/python", "python3"]

    func run() throws {
        shape.prepareKernels()
        let residentBeforeData = residentMiB()
        let sessions = shape.sessionsShapedLikeTheBook()
        let counts = threads.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        print("CPU: \(cpuModel()); \(vectorExtensions())")
        print("products: \(OpenBLAS.productKernels); \(sessions.count) sessions, \(shape.samples) samples")
        let torch = try TorchPeer(pythons: torchPython, sessions: sessions, shape: shape, batch: batch)
        defer { torch?.removeData() }
        print(torch.map { "PyTorch \($0.version) (\($0.python)) in the same rounds" } ?? "PyTorch: not found")
        var runs = counts.map { TrainSpeedRun(threads: $0) }
        var torchSeconds = counts.map { _ in [Double]() }
        for round in 1...max(rounds, 1) {
            for index in runs.indices {
                let trainer = Trainer(
                    model: shape.description,
                    options: TrainingOptions(epochs: epochs, batchSize: batch, threads: runs[index].threads))
                try runs[index].train(trainer, on: sessions, round: round)
            }
            guard let torch else { continue }
            for (index, threads) in counts.enumerated() {
                torchSeconds[index] += try torch.epochSeconds(threads: threads, epochs: epochs)
                print(
                    String(
                        format: "round %d, PyTorch, %@: %@ s", round, threadCount(threads),
                        torchSeconds[index].suffix(epochs).map { String(format: "%.3f", $0) }.joined(separator: " ")))
            }
        }
        for run in runs { print(run.summary(samples: shape.samples, comparedWith: runs[0])) }
        if torch != nil { printTorchComparison(counts: counts, torchSeconds: torchSeconds, runs: runs) }
        let datasetMiB = Double(shape.samples * shape.features * MemoryLayout<Float>.size) / 1_048_576
        let peak = peakResidentMiB()
        print(
            String(
                format:
                    "peak RSS %.1f MiB, %.1f MiB before the data was made: the data and its training added %.1f MiB, %.1f times the data as floats (%.1f MiB)",
                peak, residentBeforeData, peak - residentBeforeData, (peak - residentBeforeData) / datasetMiB,
                datasetMiB))
    }
}

extension TrainSpeedBench {
    /// PyTorch's medians, and how much faster GestureLab's best thread count is than PyTorch's best.
    private func printTorchComparison(counts: [Int], torchSeconds: [[Double]], runs: [TrainSpeedRun]) {
        for (threads, seconds) in zip(counts, torchSeconds) {
            print(
                String(
                    format: "PyTorch, %@: median %.3f s/epoch, %.2f M samples/s", threadCount(threads),
                    median(seconds), Double(shape.samples) / median(seconds) / 1e6))
        }
        let torchBest = torchSeconds.map(median).min()!, ownBest = runs.map { median($0.seconds) }.min()!
        print(String(format: "GestureLab's best is %.2f× PyTorch's best", torchBest / ownBest))
    }
}

/// One thread count's trainings in `train-speed`: every epoch's wall and CPU seconds, and the
/// model each training ended with.
private struct TrainSpeedRun {
    let threads: Int
    var seconds: [Double] = []
    var cpuSeconds: [Double] = []
    var models: [GestureModel] = []

    mutating func train(_ trainer: Trainer, on sessions: [LabeledSequence], round: Int) throws {
        var cpuBefore = processCPUSeconds()
        let result = try trainer.train(sessions) { report in
            let cpuNow = processCPUSeconds()
            cpuSeconds.append(cpuNow - cpuBefore)
            cpuBefore = cpuNow
            seconds.append(report.seconds)
            print(
                String(
                    format: "round %d, %@, epoch %2d  %.3f s (CPU %.3f s)  loss %.4f  accuracy %.3f", round,
                    threadCount(threads), report.epoch, report.seconds, cpuSeconds.last!,
                    report.trainingLoss, report.trainingAccuracy))
        }
        models.append(result.model)
    }

    func summary(samples: Int, comparedWith first: TrainSpeedRun) -> String {
        let wall = median(seconds)
        let same = models == first.models ? "the same model" : "a different model"
        return String(
            format:
                "%@: median %.3f s/epoch (CPU %.3f s), %.2f M samples/s, %.2f× the speed with %@; %@ as with %@",
            threadCount(threads), wall, median(cpuSeconds), Double(samples) / wall / 1e6,
            median(first.seconds) / wall, threadCount(first.threads), same, threadCount(first.threads))
    }
}

struct PredictSpeedBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predict-speed",
        abstract: """
            Microseconds for one streaming prediction on each kernel set this CPU runs, interleaved: one \
            window through the model, the LSTM state carried; and for the rejection's check of it.
            """)

    @OptionGroup var shape: LearningBenchOptions

    @Option(help: "Predictions to time on each kernel set.")
    var predictions = 20_000

    @Option(help: "Predictions in a row on one kernel set before the next takes its turn.")
    var round = 500

    @Option(
        parsing: .upToNextOption,
        help: "Pythons to look for ONNX Runtime in; the first that imports onnxruntime takes its turn in each round.")
    var onnxPython = [".cache/interop/bin/python", "python3"]

    func run() throws {
        shape.prepareKernels()
        let sessions = Array(shape.sessionsShapedLikeTheBook().prefix(8))
        let model = GestureModel(
            untrained: shape.description, normalization: FeatureNormalization(fitting: sessions), seed: 1
        ).calibratingRejection(on: sessions)
        let paths = ProductKernels.available.map { StreamSpeed(StreamingClassifier(model: model, kernels: $0)) }
        let windowSize = shape.window * shape.features
        let stream = sessions[0].features
        let onnxRuntime = try ONNXRuntimePeer(pythons: onnxPython, model: model, stream: stream)
        for first in stride(from: 0, to: predictions, by: round) {
            for path in paths {
                for index in first..<min(first + round, predictions) {
                    let start = (index * windowSize) % (stream.count - windowSize + 1)
                    path.predict(Array(stream[start..<start + windowSize]))
                }
            }
            try onnxRuntime?.predict(min(round, predictions - first))
        }
        print("CPU: \(cpuModel()); \(vectorExtensions()); OpenBLAS \(OpenBLAS.coreName)")
        print("products by default: \(OpenBLAS.productKernels)")
        let reference = paths.first { $0.kernels == .openblas }!
        for path in paths {
            let difference = zip(path.probabilities, reference.probabilities).map { abs($0 - $1) }.max() ?? 0
            let name = path.kernels.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
            let figures = String(
                format: "median %.2f µs, p99 %.2f µs; the rejection's check %.2f µs; max |Δp| %.1e", median(path.times),
                percentile(path.times, 0.99), median(path.checks), difference)
            print("\(name) \(predictions) predictions: \(figures) from \(reference.kernels.rawValue)")
        }
        guard let onnxRuntime else { return print("ONNX Runtime: not found") }
        let peer = try onnxRuntime.finish()
        print(
            String(
                format:
                    "ONNX Runtime %@ (%@, one thread), prediction and rejection together: median %.2f µs, p99 %.2f µs",
                onnxRuntime.version, onnxRuntime.python, peer.median, peer.p99))
        for path in paths {
            print(
                String(
                    format: "%@: ONNX Runtime's median is %.1f× its prediction and check", path.kernels.rawValue,
                    peer.median / (median(path.times) + median(path.checks))))
        }
    }
}

/// One kernel set's stream in `predict-speed`: its state, times and every probability it gave.
private final class StreamSpeed {
    let classifier: StreamingClassifier
    var state: StreamState
    var times: [Double] = []
    var checks: [Double] = []
    var probabilities: [Float] = []

    init(_ classifier: StreamingClassifier) {
        self.classifier = classifier
        state = classifier.initialState
    }

    var kernels: ProductKernels { classifier.kernels }

    func predict(_ window: [Float]) {
        let begin = ContinuousClock.now
        let stepped = classifier.step(window, state: &state)
        let end = ContinuousClock.now
        _ = classifier.rejects(stepped, state: state)
        times.append((end - begin) / .microseconds(1))
        checks.append((ContinuousClock.now - end) / .microseconds(1))
        probabilities += stepped
    }
}

/// "1 thread", "2 threads".
private func threadCount(_ threads: Int) -> String { threads == 1 ? "1 thread" : "\(threads) threads" }
