import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureLearning
import GestureScenarios
import GestureTraining
import Synchronization

struct Crossval: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract:
            "Leave each person out in turn: train on the others from scratch, test on them; each fold, the mean and the spread.",
        discussion: """
            What a new person will see, measured on every person you have rather than one: choose settings by \
            the mean, never by one fold. Takes the options `gesture train` takes; each fold trains for all its \
            epochs and keeps the one of the lowest training loss, so no test person is looked at. Ctrl-C stops \
            at once and summarises the folds done.

            --leave-gesture-out measures motion the model was never taught: each fold leaves a gesture and a \
            person out, trains on the rest, and replays all of the person's sessions through the live detector \
            as `gesture detect --evaluate` does: false detections per hour of unknown motion (the left-out \
            gesture's takes, their everyday motion recorded as other, and the rest between takes), the share \
            of their known gestures found, and the delay.
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
    @Flag(help: "Leave a gesture out with the person: how often the detector fires on motion it was not taught.")
    var leaveGestureOut = false
    @Flag(help: "With --leave-gesture-out: each gesture with every person, not one person per gesture.")
    var everyPerson = false
    @OptionGroup(title: "With --leave-gesture-out: the live detector, as `gesture detect` takes it")
    var detection: DetectionSettingsOptions
    @Option(help: "With --leave-gesture-out: off replays without the model's rejection of unknown motion.")
    var reject = Switch.on

    func checkNumbers() throws {
        try model.check()
        try Failure.check("--runs", runs, in: 1...100)
        _ = try detection.settings
    }

    func run() async throws {
        try checkNumbers()
        try model.checkFeatures()
        guard !everyPerson || leaveGestureOut else { throw Failure.usage("--every-person needs --leave-gesture-out") }
        let selected = try analysing {
            let selected = try SessionSelection(gestures: try gestures.map(activityLabel))
                .apply(to: try DatasetLoader(folder: folder.folder).load())
            return try rate.map { try selected.downsampled(to: $0) } ?? selected
        }
        let recipe = model.recipe(for: selected)
        if !recipe.choices.isEmpty { Terminal.note(recipe.choicesText) }
        let stop = Atomic<Bool>(false)
        let signals = SignalWatch { _ in stop.store(true, ordering: .relaxed) }
        if leaveGestureOut {
            try leavingGesturesOut(
                of: selected, recipe: recipe, isCancelled: { stop.load(ordering: .relaxed) }, signals: signals)
            return
        }
        let crossValidation = try analysing { try CrossValidation(selected) }
        let summary = try learning {
            try crossValidation.run(
                runs: runs, seed: model.seed,
                experiment: { try experiment(for: $0, of: crossValidation.users, recipe: recipe) },
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

    private func experiment(
        for fold: CrossValidation.Fold, of users: [UserID], recipe: TrainingRecipe
    ) throws -> Experiment {
        Terminal.note("leaving \(fold.user) out (\((users.firstIndex(of: fold.user) ?? 0) + 1) of \(users.count))")
        return try experiment(training: fold.training, test: fold.test, recipe: recipe, leaving: fold.user.rawValue)
    }

    /// Every fold takes the recipe of all the sessions, so that the folds differ only by whom they leave out.
    private func experiment(
        training: Dataset, test: Dataset?, recipe: TrainingRecipe, leaving what: String
    ) throws -> Experiment {
        do {
            return try model.experiment("crossval", recipe: recipe, training: training, validation: nil, test: test)
        } catch let error as AnalysisError {
            throw Failure.usage(
                "leaving \(what) out: \(error.description); --gesture chooses the gestures everyone recorded")
        }
    }

    /// Each fold leaves a gesture and a person out; its model's live detector replays the person.
    private func leavingGesturesOut(
        of data: Dataset, recipe: TrainingRecipe, isCancelled: @escaping () -> Bool, signals: SignalWatch
    ) throws {
        var settings = try detection.settings
        settings.reject = reject == .on
        let validation = try analysing { try OpenSetValidation(data, everyPerson: everyPerson) }
        let count = validation.folds.count
        var started = 0
        let (total, done) = try learning {
            try validation.run(
                seed: model.seed, settings: settings,
                experiment: { fold in
                    started += 1
                    Terminal.note("leaving \(fold.gesture) and \(fold.user) out (\(started) of \(count))")
                    return try experiment(
                        training: fold.training, test: nil, recipe: recipe,
                        leaving: "\(fold.gesture) and \(fold.user)")
                }, isCancelled: isCancelled
            ) { fold, score in
                Terminal.say(
                    json
                        ? try jsonLine(OpenSetLine(fold: fold, score: score))
                        : "\(fold.gesture) and \(fold.user) left out: \(score.summary)")
            }
        }
        let summary = "\(done) of \(count) folds: \(total.summary)"
        if let signal = signals.received {
            if done > 0 {
                Terminal.say(json ? try jsonLine(OpenSetLine(score: total)) : "stopped after \(summary)")
            } else {
                Terminal.note("stopped before the first of \(count) folds ended")
            }
            throw interrupted(by: signal)
        }
        Terminal.say(json ? try jsonLine(OpenSetLine(score: total)) : summary)
    }
}

/// One fold of `crossval --leave-gesture-out`, or their sum, as a JSON line.
private struct OpenSetLine: Encodable {
    var gesture: String?
    var user: String?
    var falseDetectionsPerHour: Double
    var falseDetections: Int
    var unknownHours: Double
    var knownGestures: Int
    var found: Int
    var medianDelay: Double?

    init(fold: OpenSetValidation.Fold? = nil, score: OpenSetScore) {
        gesture = fold?.gesture.rawValue
        user = fold?.user.rawValue
        falseDetectionsPerHour = score.unknown.falseDetectionsPerHour
        falseDetections = score.unknown.falseDetections
        unknownHours = score.unknown.unknownHours
        knownGestures = score.known.events
        found = score.known.found
        medianDelay = score.known.delays.median
    }
}
