import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureTraining

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
        let loaded = try loadModel(model)
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
        let personalParts = PersonalParts(loaded, sequences: data.sequences)
        let heatmap = confusion ?? (model as NSString).deletingPathExtension + ".confusion.svg"
        try write(Reports.confusionSVG(evaluation), to: heatmap)
        if json {
            Terminal.say(
                try jsonLine(
                    EvaluationReport(
                        evaluation: evaluation, confusionSVG: heatmap, personalUser: personalParts?.user.rawValue,
                        personal: personalParts?.personal, others: personalParts?.others)))
            for session in perSession ? evaluation.sessions : [] { Terminal.say(try jsonLine(session)) }
        } else {
            Terminal.say(Reports.evaluationText(evaluation))
            if let personalParts {
                let user = personalParts.user.rawValue
                for (title, part) in [
                    ("\(user)'s own", personalParts.personal), ("everyone else's", personalParts.others),
                ] {
                    Terminal.say("\n== \(title) sessions (the model is personalised for \(user))")
                    Terminal.say(part.map(Reports.evaluationText) ?? "none")
                }
            }
            if perSession { Terminal.say("\n" + Reports.sessionsText(evaluation)) }
            Terminal.say("\nconfusion matrix drawn in \(heatmap)")
        }
    }

    /// Warns when the test sessions, or their users, are among those the model trained on or was
    /// personalised with; notes when the model does not say.
    private func warnAboutTraining(of model: GestureModel, testing sequences: [LabeledSequence]) {
        let leakage = Leakage(model: model, testing: sequences)
        leakage.warnings.forEach(Terminal.warn)
        leakage.unknown.map(Terminal.note)
    }
}

/// `gesture evaluate --json`: the evaluation, and where its confusion matrix was drawn; for a
/// personalised model, also the evaluations of its person's sessions and of everyone else's.
private struct EvaluationReport: Encodable {
    var evaluation: Evaluation
    var confusionSVG: String
    var personalUser: String?
    var personal: Evaluation?
    var others: Evaluation?
}

/// A personalised model's test sessions, its person's apart from everyone else's.
private struct PersonalParts {
    var user: UserID
    var personal: Evaluation?
    var others: Evaluation?

    init?(_ model: GestureModel, sequences: [LabeledSequence]) {
        guard let user = model.personalization?.user else { return nil }
        self.user = user
        let (own, others) = (sequences.filter { $0.user == user }, sequences.filter { $0.user != user })
        personal = own.isEmpty ? nil : Evaluation(model: model, sequences: own)
        self.others = others.isEmpty ? nil : Evaluation(model: model, sequences: others)
    }
}
