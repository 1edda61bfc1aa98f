import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureExperiments
import GestureLearning

struct Evaluate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score a model on recorded sessions: accuracy, precision, recall, F1 and the confusion matrix.")

    @Argument(help: "The model file `gesture train` wrote.") var model: String
    @OptionGroup var folder: FolderOptions
    @Option(help: "A manifest from `gesture split`: its test part is scored.") var test: String?
    @Option(name: .customLong("gesture"), help: "Without --test: only sessions of this gesture (repeatable).")
    var gestures: [String] = []
    @Option(help: "The confusion matrix as an SVG heatmap (default: beside the model).") var confusion: String?
    @Flag(
        name: .customLong("per-session"),
        help:
            "Also a row per session: its gesture, the gesture found, its gesture windows right, its window accuracy, and its windows predicted as each class."
    )
    var perSession = false
    @Flag(help: "The figures as one JSON object; with --per-session, then one object per session.") var json = false

    func run() async throws {
        let loaded: GestureModel
        do {
            loaded = try GestureModel(contentsOf: model)
        } catch {
            throw Failure.usage("\(error)")
        }
        let parts = try analysing {
            try ExperimentData(
                folder: folder.folder, manifest: test, gestures: try gestures.map(activityLabel),
                rate: loaded.samplingRate, usingTestPart: test != nil)
        }
        let features = try analysing {
            try loaded.featureNames.map { name throws(UnknownFeature) in try Feature(named: name) }
        }
        let data = try analysing {
            try TrainingData(dataset: parts.training, features: features, classNames: loaded.classNames)
        }
        warnAboutTraining(of: loaded, testing: data.sequences)
        let evaluation = Evaluation(model: loaded, sequences: data.sequences)
        let heatmap = confusion ?? (model as NSString).deletingPathExtension + ".confusion.svg"
        try write(Reports.confusionSVG(evaluation), to: heatmap)
        if json {
            Terminal.say(try jsonLine(EvaluationReport(evaluation: evaluation, confusionSVG: heatmap)))
            for session in perSession ? evaluation.sessions : [] { Terminal.say(try jsonLine(session)) }
        } else {
            Terminal.say(Reports.evaluationText(evaluation))
            if perSession { Terminal.say("\n" + Reports.sessionsText(evaluation)) }
            Terminal.say("\nconfusion matrix drawn in \(heatmap)")
        }
    }

    /// Warns when the test sessions, or their users, are among those the model trained on. A model
    /// that does not record them (written before models did, or imported) gets a note instead.
    private func warnAboutTraining(of model: GestureModel, testing sequences: [LabeledSequence]) {
        guard let record = model.trainingRecord else {
            Terminal.note(
                "the model does not record what it was trained on, so whether the test is new to it is unknown")
            return
        }
        let trained = record.trainedOn(sequences).count
        if trained > 0 {
            Terminal.warn(
                "\(trained) of the \(sequences.count.counting("test session")) \(trained == 1 ? "was" : "were") in its training set: these figures are not a test"
            )
        }
        let shared = record.trainingUsers(among: sequences).map(\.rawValue)
        if !shared.isEmpty {
            Terminal.warn(
                "the test set shares users with training (\(shared.joined(separator: ", "))): these figures flatter the model"
            )
        }
    }
}

/// `gesture evaluate --json`: the evaluation, and where its confusion matrix was drawn.
private struct EvaluationReport: Encodable {
    var evaluation: Evaluation
    var confusionSVG: String
}
