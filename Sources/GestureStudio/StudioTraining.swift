import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning
import GestureStore
import GestureTraining
import HTTPTypes
import Synchronization

import struct SystemPackage.FilePath

/// Training from the studio's page, one run at a time, on a thread of its own: the sessions ticked
/// or a manifest's parts, trained as `gesture train` trains, the model written beside its history
/// into the recordings folder's `models/`, scored on the sessions held out as `gesture evaluate`
/// scores, and offered to the detect view.
final class StudioTraining: Sendable {
    let recordings: StudioRecordings
    let models: ModelShelf
    private let run = Mutex(Run())

    init(recordings: StudioRecordings, models: ModelShelf) {
        self.recordings = recordings
        self.models = models
    }

    /// The current or last run, and whether the page asked to cancel it.
    private struct Run {
        var progress = TrainingProgress()
        var cancelling = false
    }

    /// Starts training as `request` asks, unless a run is under way.
    func start(_ request: TrainingRequest) throws(StudioRefusal) -> TrainingProgress {
        let earlier = try reserve()
        let plan: TrainingPlan
        do {
            plan = try TrainingPlan(request, recordings: recordings)
        } catch {
            run.withLock { $0.progress = earlier }
            throw StudioRefusal(.badRequest, error.description)
        }
        let started = run.withLock {
            $0.progress = TrainingProgress(state: .running, epochs: plan.experiment.options.epochs, plan: plan.summary)
            return $0.progress
        }
        Thread { self.train(plan) }.start()
        return started
    }

    var progress: TrainingProgress { run.withLock { $0.progress } }

    /// Asks the run under way to stop after its current batch; nothing is written.
    func cancel() throws(StudioRefusal) -> TrainingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard run.progress.state == .running else { throw StudioRefusal(.conflict, "no training is running") }
            run.cancelling = true
            return run.progress
        }
    }

    /// Marks a run as started, so that a second start is refused while this one is prepared.
    private func reserve() throws(StudioRefusal) -> TrainingProgress {
        try run.withLock { run throws(StudioRefusal) in
            guard run.progress.state != .running else {
                throw StudioRefusal(
                    .conflict,
                    "a training is running (epoch \(run.progress.history.count) of \(run.progress.epochs)): "
                        + "wait for it, or cancel it")
            }
            let earlier = run.progress
            run = Run(progress: TrainingProgress(state: .running, epochs: 0, plan: ""))
            return earlier
        }
    }

    private func train(_ plan: TrainingPlan) {
        let ending: TrainingProgress.Ending
        do {
            ending = try finish(plan)
        } catch {
            ending = .failed(error.description)
        }
        run.withLock { $0.progress.end(ending) }
    }

    private func finish(_ plan: TrainingPlan) throws(StudioError) -> TrainingProgress.Ending {
        let experiment = plan.experiment
        let result: TrainingResult
        do {
            result = try experiment.trainer(seed: experiment.options.seed).train(
                try experiment.trainingSequences(seed: experiment.options.seed),
                validation: experiment.validation?.sequences ?? [],
                onEpoch: { report in self.run.withLock { $0.progress.history.append(report) } },
                isCancelled: { self.run.withLock { $0.cancelling } })
        } catch {
            throw StudioError("\(error)")
        }
        guard !result.wasCancelled else { return .cancelled }
        let scored = experiment.test ?? experiment.validation
        let evaluation = Evaluation(model: result.model, sequences: scored?.sequences ?? [])
        let file = try save(result, evaluation: evaluation)
        return .finished(
            model: file.lastComponent?.string ?? file.string, index: models.add(file.string),
            keptEpoch: result.bestEpoch, evaluation)
    }

    /// Writes the model as `gesture train --output` does, its history and confusion matrix beside
    /// it, under the first name `models/studio-N.model` not taken.
    private func save(_ result: TrainingResult, evaluation: Evaluation) throws(StudioError) -> FilePath {
        let folder = recordings.folder.root.appending("models")
        let number = (1...).first {
            !FileManager.default.fileExists(atPath: folder.appending("studio-\($0).model").string)
        }!
        let base = folder.appending("studio-\(number)").string
        do {
            try FileManager.default.createDirectoryIfNeeded(folder)
            try writeOutput(result.model.serialized(), to: FilePath(base + ".model"))
            try writeOutput(Array(Reports.historyCSV(result.history).utf8), to: FilePath(base + ".history.csv"))
            try writeOutput(
                Array(Reports.historySVG(result.history, keptEpoch: result.bestEpoch).utf8),
                to: FilePath(base + ".history.svg"))
            try writeOutput(Array(Reports.confusionSVG(evaluation).utf8), to: FilePath(base + ".confusion.svg"))
        } catch {
            throw StudioError("\(error)")
        }
        return FilePath(base + ".model")
    }
}

/// What the page sends to start training: the sessions ticked, or a manifest of the recordings
/// folder, and `gesture train`'s common options; those left out take `gesture train`'s defaults.
struct TrainingRequest: Decodable {
    var sessions: [String]?
    var manifest: String?
    var classifier: String?
    /// `--augment`'s values; none or empty: the recipe's copies.
    var augment: [String]?
    var epochs: Int?
}

/// What the page reads of a run: its state, the epochs done and to do, their figures, and once
/// finished the model and its evaluation on the sessions held out.
struct TrainingProgress: Encodable, Sendable {
    enum State: String, Encodable, Sendable {
        case idle, running, finished, failed, cancelled
    }

    enum Ending {
        case finished(model: String, index: Int, keptEpoch: Int, Evaluation)
        case failed(String)
        case cancelled
    }

    var state = State.idle
    var epochs = 0
    var history: [EpochReport] = []
    /// What is trained on, validated and scored on, and with which settings.
    var plan = ""
    var error: String?
    /// The model's file name, and its position among the studio's models.
    var model: String?
    var modelIndex: Int?
    /// The epoch whose weights the model has: the lowest validation loss.
    var keptEpoch: Int?
    var evaluation: Evaluation?

    mutating func end(_ ending: Ending) {
        switch ending {
        case .finished(let model, let index, let keptEpoch, let evaluation):
            state = .finished
            self.model = model
            modelIndex = index
            self.keptEpoch = keptEpoch
            self.evaluation = evaluation
        case .failed(let message):
            state = .failed
            error = message
        case .cancelled: state = .cancelled
        }
    }
}
