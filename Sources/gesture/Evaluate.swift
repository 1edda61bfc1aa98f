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
    @Flag(help: "The figures as one JSON object.") var json = false

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
        if let trained = parts.trainingUsers {
            let shared = Set(trained).intersection(data.sequences.map(\.user)).map(\.rawValue).sorted()
            if !shared.isEmpty {
                Terminal.warn(
                    "the test set shares users with training (\(shared.joined(separator: ", "))): these figures flatter the model"
                )
            }
        }
        let evaluation = Evaluation(model: loaded, sequences: data.sequences)
        let heatmap = confusion ?? (model as NSString).deletingPathExtension + ".confusion.svg"
        try write(Reports.confusionSVG(evaluation), to: heatmap)
        if json {
            Terminal.say(try jsonLine(EvaluationReport(evaluation: evaluation, confusionSVG: heatmap)))
        } else {
            Terminal.say(Reports.evaluationText(evaluation))
            Terminal.say("\nconfusion matrix drawn in \(heatmap)")
        }
    }
}

/// `gesture evaluate --json`: the evaluation, and where its confusion matrix was drawn.
private struct EvaluationReport: Encodable {
    var evaluation: Evaluation
    var confusionSVG: String
}
