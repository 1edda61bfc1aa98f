import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureExperiments
import GestureLearning
import Synchronization

struct Train: AsyncParsableCommand {
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
        let parts = try analysing {
            try ExperimentData(
                folder: folder.folder, manifest: manifest, gestures: try gestures.map(activityLabel), rate: rate)
        }
        let chosen = try model.chosenFeatures
        // Overfitting learns only the classes of its few sessions, and is not validated.
        let sessions = overfit.map { Dataset(sessions: Array(parts.training.sessions.prefix($0))) } ?? parts.training
        let training = try analysing {
            try TrainingData(dataset: sessions.augmented(by: model.augmentationPlan), features: chosen)
        }
        let validation = try (overfit == nil ? parts.validation : nil).map { dataset in
            try checkClasses(of: dataset, against: training)
            return try analysing {
                try TrainingData(dataset: dataset, features: chosen, classNames: training.classNames)
            }
        }
        if let validation, !TrainingData.sharedUsers(training.sequences, validation.sequences).isEmpty {
            Terminal.warn(
                "validation shares users with training: \(TrainingData.sharedUsers(training.sequences, validation.sequences).map(\.rawValue).joined(separator: ", "))"
            )
        }
        let trainer = Trainer(
            model: model.description(rate: training.rate, classNames: training.classNames), options: model.training)
        (json ? Terminal.note : Terminal.say)(
            "training on \(training.sequences.count.counting("session")) (\(training.classNames.joined(separator: ", "))), "
                + "validating on \(validation?.sequences.count ?? 0), \(chosen.count) features at \(String(format: "%g", training.rate)) Hz"
        )
        if overfit != nil {
            try check(trainer, fitting: training.sequences)
        } else {
            try fit(trainer, training: training, validation: validation)
        }
    }

    private func checkOptions() throws {
        try model.check()
        if let overfit, overfit < 1 {
            throw Failure.usage("--overfit \(overfit) is not a positive number")
        }
        let outputFolder = URL(fileURLWithPath: output).deletingLastPathComponent().standardizedFileURL
        guard outputFolder != URL(fileURLWithPath: folder.path, isDirectory: true).standardizedFileURL else {
            throw Failure.usage(
                "--output \(output) would put its history CSV among the recordings, where every .csv is read as "
                    + "one; write it to a folder of its own, e.g. \(folder.path)/models/")
        }
    }

    /// Validation windows of a class the model cannot predict would only lower its figures.
    private func checkClasses(of validation: Dataset, against training: TrainingData) throws {
        let known = Set(training.classNames)
        for session in validation.sessions {
            if let label = session.rows.lazy.map(\.activity.rawValue).first(where: { !known.contains($0) }) {
                throw Failure.usage(
                    "validation session \(session.id) has the class '\(label)', which the training set lacks "
                        + "(it has \(training.classNames.joined(separator: ", ")))")
            }
        }
    }

    private func check(_ trainer: Trainer, fitting sessions: [LabeledSequence]) throws {
        let result = try learning { try trainer.overfit(sessions, onEpoch: { print(epoch: $0, at: Date()) }) }
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

    private func fit(_ trainer: Trainer, training: TrainingData, validation: TrainingData?) throws {
        let stop = Atomic<Bool>(false)
        let signals = SignalWatch { _ in stop.store(true, ordering: .relaxed) }
        let started = Date()
        let result = try learning {
            try trainer.train(
                training.sequences, validation: validation?.sequences ?? [],
                onEpoch: { print(epoch: $0, at: started) },
                isCancelled: { stop.load(ordering: .relaxed) })
        }
        do {
            try result.model.write(to: output)
        } catch {
            throw Failure.failed("cannot write \(output): \(error.localizedDescription)")
        }
        let base = (output as NSString).deletingPathExtension
        try write(Reports.historyCSV(result.history), to: base + ".history.csv")
        try write(Reports.historySVG(result.history, keptEpoch: result.bestEpoch), to: base + ".history.svg")
        if json {
            Terminal.say(
                try jsonLine(
                    TrainingReport(
                        model: output, keptEpoch: result.bestEpoch, epochs: result.history.count,
                        stopped: result.wasCancelled, history: base + ".history.csv")))
        } else {
            Terminal.say(
                "\(result.wasCancelled ? "stopped; " : "")kept epoch \(result.bestEpoch) of \(result.history.count) in \(output); "
                    + "history in \(base).history.csv and .svg")
        }
        if let signal = signals.received { throw interrupted(by: signal) }
    }

    private func print(epoch report: EpochReport, at started: Date) {
        let elapsed = Date().timeIntervalSince(started)
        let left = elapsed / Double(report.epoch) * Double(model.epochs - report.epoch)
        Terminal.say(
            json ? (try? jsonLine(report)) ?? "" : Reports.epochLine(report, of: model.epochs, secondsLeft: left))
    }
}
extension Augmentation: ExpressibleByArgument {}
extension LearningRateSchedule: ExpressibleByArgument {}

/// `gesture train --json`'s last line: the model written and the epoch it keeps.
private struct TrainingReport: Encodable {
    var model: String
    var keptEpoch: Int
    var epochs: Int
    var stopped: Bool
    var history: String
}
