import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureTraining

struct Crossval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Leave each person out in turn: train on the others from scratch, test on them; each fold, the mean and the spread.",
        discussion: """
            What a new person will see, measured on every person you have rather than one: choose settings by \
            the mean, never by one fold. Takes the options `gesture train` takes; each fold trains for all its \
            epochs and keeps the one of the lowest training loss, so no test person is looked at.
            """)

    enum Grouping: String, ExpressibleByArgument, CaseIterable {
        case user
    }

    @OptionGroup var folder: FolderOptions
    @Option(help: "What each fold leaves out: user.") var by: Grouping = .user
    @Option(name: .customLong("gesture"), help: "Only sessions of this gesture (repeatable).")
    var gestures: [String] = []
    @Option(help: "Downsample to this rate in Hz first.") var rate: Double?
    @OptionGroup var model: ModelOptions
    @Option(help: "Trainings per fold, from --seed on; a fold's figure is their median.") var runs = 1
    @Flag(help: "One JSON object per fold, per line, then one for the summary.") var json = false

    func run() async throws {
        try model.check()
        _ = try model.chosenFeatures
        guard runs >= 1 else { throw Failure.usage("--runs \(runs) is not a positive number") }
        let crossValidation = try analysing {
            let selected = try SessionSelection(gestures: try gestures.map(activityLabel))
                .apply(to: try DatasetLoader(folder: folder.folder).load())
            return try CrossValidation(try rate.map { try selected.downsampled(to: $0) } ?? selected)
        }
        let summary = try learning {
            try crossValidation.run(runs: runs, seed: model.seed, experiment: experiment) { fold in
                Terminal.say(json ? try jsonLine(fold) : "\(fold.user) left out: \(fold.line)")
            }
        }
        Terminal.say(json ? try jsonLine(summary) : summary.text)
    }

    private func experiment(for fold: CrossValidation.Fold) throws -> Experiment {
        do {
            return try Experiment(
                name: "crossval", features: model.features, window: model.window, layers: model.layers,
                training: fold.training, augmentation: model.augmentationPlan, options: model.training,
                validation: nil, test: fold.test)
        } catch let error as AnalysisError {
            throw Failure.usage(
                "leaving \(fold.user.rawValue) out: \(error.description); --gesture chooses the gestures everyone recorded"
            )
        }
    }
}
