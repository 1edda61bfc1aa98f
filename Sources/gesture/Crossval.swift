import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureTraining
import Synchronization

struct Crossval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Leave each person out in turn: train on the others from scratch, test on them; each fold, the mean and the spread.",
        discussion: """
            What a new person will see, measured on every person you have rather than one: choose settings by \
            the mean, never by one fold. Takes the options `gesture train` takes; each fold trains for all its \
            epochs and keeps the one of the lowest training loss, so no test person is looked at. Ctrl-C stops \
            at once and summarises the folds done.
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
        try Failure.check("--runs", runs, in: 1...100)
        let crossValidation = try analysing {
            let selected = try SessionSelection(gestures: try gestures.map(activityLabel))
                .apply(to: try DatasetLoader(folder: folder.folder).load())
            return try CrossValidation(try rate.map { try selected.downsampled(to: $0) } ?? selected)
        }
        let stop = Atomic<Bool>(false)
        let signals = SignalWatch { _ in stop.store(true, ordering: .relaxed) }
        let summary = try learning {
            try crossValidation.run(
                runs: runs, seed: model.seed, experiment: { try experiment(for: $0, of: crossValidation.users) },
                isCancelled: { stop.load(ordering: .relaxed) }
            ) { fold in
                Terminal.say(json ? try jsonLine(fold) : "\(fold.user) left out: \(fold.line)")
            }
        }
        guard let signal = signals.received else {
            Terminal.say(json ? try jsonLine(summary) : summary.text)
            return
        }
        let folds = crossValidation.users.count
        if summary.folds > 0 {
            Terminal.say(
                json ? try jsonLine(summary) : "stopped after \(summary.folds) of \(folds) folds; \(summary.text)")
        } else {
            Terminal.note("stopped before the first of \(folds) folds ended")
        }
        throw interrupted(by: signal)
    }

    private func experiment(for fold: CrossValidation.Fold, of users: [UserID]) throws -> Experiment {
        Terminal.note("leaving \(fold.user) out (\((users.firstIndex(of: fold.user) ?? 0) + 1) of \(users.count))")
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
