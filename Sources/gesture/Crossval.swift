import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureExperiments
import GestureLearning

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
        let dataset = try analysing {
            let selected = try SessionSelection(gestures: try gestures.map(activityLabel))
                .apply(to: try DatasetLoader(folder: folder.folder).load())
            return try rate.map { try selected.downsampled(to: $0) } ?? selected
        }
        let users = Set(dataset.sessions.map(\.user)).sorted()
        guard users.count >= 2 else {
            throw Failure.usage(
                "leaving a person out needs at least two people; \(folder.path) has \(users.map(\.rawValue).joined(separator: ", "))"
            )
        }
        var folds: [Fold] = []
        for user in users {
            let fold = try measure(leavingOut: user, of: users, in: dataset)
            folds.append(fold)
            Terminal.say(json ? try jsonLine(fold) : "\(user.rawValue) left out: \(fold.line)")
        }
        let summary = CrossvalSummary(folds)
        Terminal.say(json ? try jsonLine(summary) : summary.text(runs: runs))
    }

    private func measure(leavingOut user: UserID, of users: [UserID], in dataset: Dataset) throws -> Fold {
        let experiment: Experiment
        do {
            experiment = try Experiment(
                name: "crossval", features: model.features, window: model.window, layers: model.layers,
                training: SessionSelection(users: users.filter { $0 != user }).apply(to: dataset),
                augmentation: model.augmentationPlan, options: model.training, validation: nil,
                test: SessionSelection(users: [user]).apply(to: dataset))
        } catch let error as AnalysisError {
            throw Failure.usage(
                "leaving \(user.rawValue) out: \(error.description); --gesture chooses the gestures everyone recorded")
        }
        let results = try learning {
            try (0..<UInt64(runs)).map { try experiment.run(seed: model.seed + $0) }
        }
        return Fold(user: user, runs: results)
    }
}

/// One person left out: the median of each figure over the runs.
private struct Fold: Encodable {
    var user: String
    var windowAccuracy: Double
    var macroF1: Double
    var sessionAccuracy: Double
    var trainingSeconds: Double
    /// The three largest shares of a class's windows taken for another, over the runs together.
    var mostConfused: [Mistake]

    init(user: UserID, runs: [Experiment.Run]) {
        let evaluations = runs.compactMap(\.evaluation)
        self.user = user.rawValue
        windowAccuracy = evaluations.map(\.accuracy).median ?? .nan
        macroF1 = evaluations.map(\.macroF1).median ?? .nan
        sessionAccuracy = evaluations.map(\.sessionAccuracy).median ?? .nan
        trainingSeconds = runs.map(\.seconds).median ?? .nan
        mostConfused = Evaluation.largestMistakes(of: evaluations, count: 3)
    }

    var line: String {
        String(
            format: "window accuracy %.4f, macro F1 %.4f, session accuracy %.4f; trained in %.1f s", windowAccuracy,
            macroF1, sessionAccuracy, trainingSeconds) + "; most confused: " + mostConfused.listed
    }
}

/// The folds' window accuracy: mean, spread, least and most.
private struct CrossvalSummary: Encodable {
    var folds: Int
    var meanWindowAccuracy: Double
    var standardDeviation: Double
    var least: Double
    var most: Double
    var meanSessionAccuracy: Double
    var trainingSeconds: Double

    init(_ folds: [Fold]) {
        let spread = Spread(folds.map(\.windowAccuracy))
        self.folds = folds.count
        meanWindowAccuracy = spread.mean
        standardDeviation = spread.standardDeviation
        least = spread.values.min() ?? .nan
        most = spread.values.max() ?? .nan
        meanSessionAccuracy = Spread(folds.map(\.sessionAccuracy)).mean
        trainingSeconds = folds.map(\.trainingSeconds).reduce(0, +)
    }

    func text(runs: Int) -> String {
        String(
            format:
                "mean window accuracy %.4f over %d people (standard deviation %.4f, least %.4f, most %.4f); mean session accuracy %.4f; %d %@ a fold, %.0f s of training",
            meanWindowAccuracy, folds, standardDeviation, least, most, meanSessionAccuracy, runs,
            runs == 1 ? "run" : "runs", trainingSeconds)
    }
}
