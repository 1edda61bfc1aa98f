import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureStore
import GestureTraining
import Synchronization

import struct SystemPackage.FilePath

struct Train: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract: "Train the CNN+LSTM gesture classifier on recorded sessions.",
        discussion: """
            Trains on the manifest's train part and validates on its validation part (from `gesture split`), \
            or on every selected session without validation. Ctrl-C stops after the current batch and keeps \
            the best model so far.
            """)

    @OptionGroup var folder: FolderOptions
    @Option(help: "A manifest from `gesture split`: its train and validation parts.") var manifest: String?
    @Option(name: .customLong("gesture"), help: "Without --manifest: only sessions of this gesture (repeatable).")
    var gestures: [String] = []
    @Option(help: "Downsample to this rate in Hz first (default: the manifest's, else as recorded).") var rate: Double?
    @OptionGroup var model: ModelOptions
    @Option(help: "The model file to write; its history goes beside it as .history.csv and .history.svg.")
    var output = "gesture.model"
    @Option(help: "Only check that the model can fit this many sessions, as Machine Learning by Tutorials' first step.")
    var overfit: Int?

    @Flag(help: "One JSON object per epoch, per line, then one for the result.") var json = false

    func run() async throws {
        try checkOptions()
        let (experiment, recipe) = try analysing { try self.experiment() }
        let training = try analysing { try experiment.trainingSequences(seed: model.seed) }
        let shared = experiment.sharedUsers
        if !shared.isEmpty {
            Terminal.warn("validation shares users with training: \(shared.map(\.rawValue).joined(separator: ", "))")
        }
        let classes = experiment.description.classNames
        (json ? Terminal.note : Terminal.say)(
            "training on \(training.count.counting("session")) (\(classes.joined(separator: ", "))), "
                + "validating on \(experiment.validation?.sequences.count ?? 0), \(experiment.training.features.count) "
                + "features at \(experiment.description.samplingRate.shortText) Hz")
        if !recipe.choices.isEmpty {
            (json ? Terminal.note : Terminal.say)(recipe.choicesText)
        }
        if let convolutions = experiment.options.randomConvolutions {
            (json ? Terminal.note : Terminal.say)(
                "and beside the network, once it is trained, random convolutions over \(convolutions.history) samples "
                    + "(\(convolutions.outputCount) features, ridge penalty \(convolutions.penalty))")
        }
        let trainer = experiment.trainer(seed: model.seed)
        let epochs = experiment.options.epochs
        if overfit != nil {
            try check(trainer, fitting: training, epochs: epochs)
        } else {
            try fit(trainer, training: training, validation: experiment.validation, epochs: epochs)
        }
    }

    /// The one training pipeline, on the manifest's parts or the selected sessions; with --overfit,
    /// on a few sessions as recorded without validation, learning only their classes.
    private func experiment() throws -> (Experiment, TrainingRecipe) {
        let parts = try ExperimentData(
            folder: folder.folder, manifest: manifest, gestures: try gestures.map(activityLabel), rate: rate)
        let training = overfit.map { Dataset(sessions: Array(parts.training.sessions.prefix($0))) } ?? parts.training
        let recipe = model.recipe(for: training, asRecorded: overfit != nil)
        let experiment = try model.experiment(
            "train", recipe: recipe, training: training, validation: overfit == nil ? parts.validation : nil,
            test: nil)
        return (experiment, recipe)
    }

    func checkNumbers() throws {
        try model.check()
        if let overfit { try Failure.check("--overfit", overfit, in: 1...GestureModel.largestSize) }
    }

    private func checkOptions() throws {
        try checkNumbers()
        try changing { try checkOutput(FilePath(output)) }
        let outputFolder = URL(fileURLWithPath: output).deletingLastPathComponent().standardizedFileURL
        guard outputFolder != URL(fileURLWithPath: folder.path, isDirectory: true).standardizedFileURL else {
            throw Failure.usage(
                "--output \(output) would put its history CSV among the recordings, where every .csv is read as "
                    + "one; write it to a folder of its own, e.g. \(folder.path)/models/")
        }
    }

    private func check(_ trainer: Trainer, fitting sessions: [LabeledSequence], epochs: Int) throws {
        let result = try learning {
            try trainer.overfit(sessions, onEpoch: { print(epoch: $0, of: epochs, at: Date()) })
        }
        Terminal.say(
            json
                ? try jsonLine(result)
                : String(
                    format: "%@: %.3f of the windows of %d sessions right after %d epochs",
                    result.fits ? "fits" : "does not fit", result.accuracy, result.sessions, result.epochs))
        if !result.fits {
            throw Failure.failed(
                "the model cannot fit \(result.sessions.counting("session")); check the labels and features")
        }
    }

    private func fit(
        _ trainer: Trainer, training: [LabeledSequence], validation: TrainingData?, epochs: Int
    ) throws {
        let stop = Atomic<Bool>(false)
        let signals = SignalWatch { _ in stop.store(true, ordering: .relaxed) }
        let started = Date()
        let result = try learning {
            try trainer.train(
                training, validation: validation?.sequences ?? [],
                onEpoch: { print(epoch: $0, of: epochs, at: started) },
                isCancelled: { stop.load(ordering: .relaxed) })
        }
        try write(result.model.serialized(), to: output)
        let base = (output as NSString).deletingPathExtension
        try write(Reports.historyCSV(result.history), to: base + ".history.csv")
        try write(
            Reports.historySVG(result.history, keptEpoch: result.bestEpoch, averagedFrom: result.averagedFrom),
            to: base + ".history.svg")
        if json {
            Terminal.say(
                try jsonLine(
                    TrainingReport(
                        model: output, keptEpoch: result.bestEpoch, averagedFrom: result.averagedFrom,
                        epochs: result.history.count,
                        stopped: result.wasCancelled, history: base + ".history.csv", logitScale: result.logitScale)))
        } else {
            let kept =
                result.averagedFrom.map { "the mean of epochs \($0)–\(result.bestEpoch)" }
                ?? "epoch \(result.bestEpoch)"
            Terminal.say(
                "\(result.wasCancelled ? "stopped; " : "")kept \(kept) of \(result.history.count) in \(output); "
                    + "history in \(base).history.csv and .svg")
            if let scale = result.logitScale {
                Terminal.say(
                    String(
                        format:
                            "label smoothing: the network's logits are multiplied by %.2f, which fits the training windows' labels best",
                        scale))
            }
        }
        if let signal = signals.received { throw interrupted(by: signal) }
    }

    private func print(epoch report: EpochReport, of epochs: Int, at started: Date) {
        let elapsed = Date().timeIntervalSince(started)
        let left = elapsed / Double(report.epoch) * Double(epochs - report.epoch)
        Terminal.say(
            json ? (try? jsonLine(report)) ?? "" : Reports.epochLine(report, of: epochs, secondsLeft: left))
    }
}
extension LearningRateSchedule: ExpressibleByArgument {}

/// `gesture train --json`'s last line: the model written, the epoch it keeps and, with label
/// smoothing, the scale its logits were multiplied by.
private struct TrainingReport: Encodable {
    var model: String
    var keptEpoch: Int
    /// With weight averaging, the first epoch averaged (through `keptEpoch`).
    var averagedFrom: Int?
    var epochs: Int
    var stopped: Bool
    var history: String
    var logitScale: Float?
}
