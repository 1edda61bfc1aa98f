import ArgumentParser
import Foundation
import GestureAnalysis
import GestureArchive
import GestureCore
import GestureLearning
import GestureLive
import GestureScenarios
import GestureStore
import GestureTraining

import struct SystemPackage.FilePath

struct AccuracyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract:
            "Accuracy on people nobody here recorded: seglearn-watch and the simulated crowd by person, basic-motions by its own split.",
        discussion: """
            Imports ../shared/datasets into a temporary recordings folder, as `gesture import` does, then trains \
            once per seed. seglearn-watch leaves each of its seven subjects out in turn, trains on the other six \
            from scratch and tests on the one left out, and prints each fold, the mean and the spread over \
            subjects. basic-motions trains on its train cases and is tested on its test cases; with \
            --validation-only, it scores each of --basic-motions-folds of its train cases instead. The simulated \
            crowd (six people, shake, chop and drive, 5 takes each at 25 Hz) leaves each person out in turn. Each \
            dataset is trained as `gesture train` trains it by default (its recipe), unless told otherwise; \
            --first-defaults trains all three as `gesture train` did before the recipe.
            """)

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case seglearnWatch = "seglearn-watch"
        case basicMotions = "basic-motions"
        case simulated
    }

    @Option(help: "The folder holding seglearn-watch/ and basic-motions/.")
    var datasets = "../shared/datasets"

    @Option(parsing: .upToNextOption, help: "The datasets to measure.")
    var only: [Source] = Source.allCases

    @Option(parsing: .upToNextOption, help: "Seeds to train with; the figures are their medians.")
    var seeds: [UInt64] = [1, 2, 3]

    // Every seglearn default below was chosen by the mean over subjects left out, basic-motions' by
    // --validation-only; docs/training.md gives the figures behind each choice.
    @Option(help: "seglearn-watch's epochs (default: `gesture train`'s for its copies).")
    var seglearnEpochs: Int?

    @Option(help: "seglearn-watch's learning-rate schedule, as `gesture train --schedule`.")
    var seglearnSchedule: LearningRateSchedule = .constant

    @Option(help: "seglearn-watch's samples per window (50 Hz; default: `gesture train`'s, 20).")
    var seglearnWindow: Int?

    @Option(
        help:
            "seglearn-watch's windows per chunk in training: the LSTM starts afresh at each (predictions carry it on)."
    )
    var seglearnChunk = 20

    @Option(parsing: .upToNextOption, help: "seglearn-watch's features (default: `gesture train`'s).")
    var seglearnFeatures: [String] = []

    @Option(help: "seglearn-watch's import: rows to mirror onto the other wrist, as `gesture import --mirror`.")
    var seglearnMirror = "side=left"

    @Option(parsing: .upToNextOption, help: "seglearn-watch's training augmentations, as `gesture train --augment`.")
    var seglearnAugment = TrainingRecipe.augmentations

    @Flag(help: "seglearn-watch without --seglearn-mirror and --seglearn-augment: both wrists as recorded, no copies.")
    var seglearnAsRecorded = false

    @Option(
        help:
            "The largest angle --seglearn-augment rotate turns the watch by, in degrees, as `gesture train --rotation`."
    )
    var seglearnRotation = 15.0

    @Option(help: "The largest speed factor --seglearn-augment warp applies (`gesture train`: 1.25).")
    var seglearnWarp = 1.25

    @Option(help: "The largest strength factor --seglearn-augment scale applies (`gesture train`: 1.25).")
    var seglearnScale = 1.25

    @Option(help: "basic-motions' samples per window (10 Hz; default: `gesture train`'s, 20).")
    var basicMotionsWindow: Int?

    @Option(help: "basic-motions' epochs (default: `gesture train`'s for its copies).")
    var basicMotionsEpochs: Int?

    @Option(
        help: "basic-motions' chunks per batch; its 40 train cases are one chunk each (default: `gesture train`'s).")
    var basicMotionsBatch: Int?

    @Option(help: "basic-motions' learning-rate schedule, as `gesture train --schedule`.")
    var basicMotionsSchedule: LearningRateSchedule = .constant

    @Option(parsing: .upToNextOption, help: "basic-motions' training augmentations, as `gesture train --augment`.")
    var basicMotionsAugment = TrainingRecipe.augmentations

    @Option(help: "The largest angle --basic-motions-augment rotate turns the watch by, in degrees.")
    var basicMotionsRotation = 15.0

    @Option(help: "The largest speed factor --basic-motions-augment warp applies (`gesture train`: 1.25).")
    var basicMotionsWarp = 1.25

    @Option(help: "The largest strength factor --basic-motions-augment scale applies (`gesture train`: 1.25).")
    var basicMotionsScale = 1.25

    @Option(parsing: .upToNextOption, help: "basic-motions' features (default: `gesture train`'s).")
    var basicMotionsFeatures: [String] = []

    @Option(
        parsing: .upToNextOption, help: "The simulated crowd's training augmentations, as `gesture train --augment`.")
    var simulatedAugment = TrainingRecipe.augmentations

    @Flag(help: "Every dataset without copies, as `gesture train --augment none`.")
    var noCopies = false

    @Option(help: "Every dataset's label smoothing, as `gesture train --label-smoothing` (default: 0).")
    var labelSmoothing: Double?

    @Option(help: "Every dataset's epochs whose weights are averaged, as `gesture train --average-epochs`.")
    var averageEpochs: Int?

    @Option(
        help: """
            With --adapt-unlabeled: also score each model on the mean of its probabilities over the person's \
            recordings and six copies turned by ± this many degrees about each of the watch's axes, as trained \
            and with its statistics adapted (test-time augmentation).
            """)
    var turnedViews: Double?

    @Flag(
        help: """
            Every dataset as `gesture train` trained it before its recipe: the book's six features, window 20, no \
            copies, 30 epochs (options given beside it still count).
            """)
    var firstDefaults = false

    @Flag(
        help: """
            The simulated crowd: train on the prompt's labels too (as `gesture align --prompted` makes them), side \
            by side with the motion's, both tested on the motion's labels, with `detect --evaluate`'s figures.
            """)
    var promptLabels = false

    @Option(help: "Models per run, trained from seeds seed·100+1…, whose mean probabilities are scored.")
    var ensemble = 1

    @Flag(
        help: """
            seglearn-watch and the simulated crowd: also score each model with its batch norm's (and random \
            convolutions') statistics re-estimated on all the windows of the person left out, their labels \
            ignored (transductive, as a person adapts it on the motion `detect` sees), then self-trained on its \
            confident windows too, each then with the classes balanced over the person's windows \
            (--balanced), and as a control on the training windows.
            """)
    var adaptUnlabeled = false

    @Option(
        help: """
            With --adapt-unlabeled: the probability a window's top class needs for self-training to label the \
            window with it.
            """)
    var selfTrainingConfidence = SelfTraining.defaultConfidence
    @Option(help: "With --adapt-unlabeled: self-training's epochs.")
    var selfTrainingEpochs = SelfTraining.defaultOptions.epochs
    @Option(help: "With --adapt-unlabeled: self-training's learning rate.")
    var selfTrainingLearningRate = SelfTraining.defaultOptions.learningRate

    private var selfTraining: SelfTraining {
        var options = SelfTraining.defaultOptions
        options.epochs = selfTrainingEpochs
        options.learningRate = selfTrainingLearningRate
        return SelfTraining(confidence: selfTrainingConfidence, options: options)
    }

    @Option(
        help: """
            The network, MiniRocket's random convolutions with a ridge classifier (seglearn-watch and \
            basic-motions), or both with their class scores averaged, trained on the same copies (default: \
            `gesture train`'s choice).
            """)
    var classifier: Classifier?
    @Option(help: "Random convolutions: the seconds each window's features look back over.")
    var history = RandomConvolutionClassifier.Settings.historySeconds
    @Option(help: "Random convolutions: about how many features.")
    var convolutionFeatures = RandomConvolutionClassifier.Settings.outputCount
    @Option(help: "Random convolutions: the ridge penalty, per training window.")
    var ridgePenalty = RandomConvolutionClassifier.Settings.penalty

    @Option(help: "The convolution's filters.") var convFilters = LayerSizes().convolutionFilters
    @Option(help: "The LSTM's units.") var lstmUnits = LayerSizes().lstmUnits
    @Option(help: "The dense layer's units.") var denseUnits = LayerSizes().denseUnits
    @Option(help: "A temporal convolution's filters, before the window convolution; 0 for none (Turi's).")
    var temporalFilters = 0
    @Option(help: "The samples each temporal filter spans.") var temporalKernel = LayerSizes().temporalKernel
    @Option(help: "Temporal convolutions stacked, each over the one before's output.")
    var temporalLayers = LayerSizes().temporalLayers

    private var layers: LayerSizes {
        LayerSizes(
            convolutionFilters: convFilters, lstmUnits: lstmUnits, denseUnits: denseUnits,
            temporalFilters: temporalFilters, temporalKernel: temporalKernel, temporalLayers: temporalLayers)
    }

    @Flag(help: "basic-motions: score folds of its train cases only, to choose settings without its test set.")
    var validationOnly = false

    @Option(
        parsing: .upToNextOption,
        help:
            "With --validation-only: basic-motions' folds to score in turn, of 1–\(basicMotionsFoldCount); fold k holds the train cases whose position is k modulo \(basicMotionsFoldCount), two of each activity."
    )
    var basicMotionsFolds = Array(1...basicMotionsFoldCount)

    static let basicMotionsFoldCount = 5
    private static let seglearnSubjects = (1...7).map { "s0\($0)" }

    func validate() throws {
        if adaptUnlabeled, classifier == .randomConvolutions {
            throw ValidationError("--adapt-unlabeled adapts the network, not --classifier random-convolutions alone")
        }
        if classifier == .randomConvolutions, only.contains(.simulated) {
            throw ValidationError(
                "--classifier random-convolutions scores seglearn-watch and basic-motions: add --only without simulated"
            )
        }
        if adaptUnlabeled, ensemble > 1 {
            throw ValidationError("--adapt-unlabeled scores one model, not an --ensemble")
        }
        guard basicMotionsFolds.allSatisfy((1...Self.basicMotionsFoldCount).contains) else {
            throw ValidationError("--basic-motions-folds are of 1–\(Self.basicMotionsFoldCount)")
        }
        for (name, factor) in [
            ("--seglearn-warp", seglearnWarp), ("--seglearn-scale", seglearnScale),
            ("--basic-motions-warp", basicMotionsWarp), ("--basic-motions-scale", basicMotionsScale),
        ] where factor < 1 {
            throw ValidationError("\(name) \(factor) is less than 1")
        }
        if let turnedViews {
            guard adaptUnlabeled else { throw ValidationError("--turned-views is scored beside --adapt-unlabeled") }
            guard (0...90).contains(turnedViews) else {
                throw ValidationError("--turned-views \(turnedViews) is not an angle from 0 to 90 degrees")
            }
        }
        if let labelSmoothing, !(0...0.9).contains(labelSmoothing) {
            throw ValidationError("--label-smoothing \(labelSmoothing) is not a share from 0 to 0.9")
        }
    }

    func run() async throws {
        let folder = FilePath(
            FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-accuracy-\(getpid())").path)
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        let recordings = RecordingsFolder(folder)
        var seglearn = ImportedDataset.seglearnWatch
        seglearn.options.mirror =
            seglearnAsRecorded ? nil : try MirrorRule(seglearnMirror, mirroring: Mirroring(across: .x))
        for (source, dataset) in [(Source.seglearnWatch, seglearn), (.basicMotions, .basicMotions)]
        where only.contains(source) {
            try dataset.run(from: datasets, into: recordings)
        }
        if only.contains(.seglearnWatch) || only.contains(.basicMotions) {
            let loaded = try DatasetLoader(folder: recordings).load()
            if only.contains(.seglearnWatch) { try measureSeglearn(loaded) }
            if only.contains(.basicMotions) { try measureBasicMotions(loaded) }
        }
        if only.contains(.simulated) { try await measureSimulated(in: RecordingsFolder(folder.appending("simulated"))) }
    }

    /// The people of the simulated crowd.
    static let simulatedCrowd = ["ada", "ben", "cy", "dee", "eli", "fay"]

    /// Leave one simulated person out, trained on the others as `gesture train` trains by default;
    /// with `--prompt-labels`, also on the prompt's labels, and each model's detections scored.
    private func measureSimulated(in folder: RecordingsFolder) async throws {
        let crowd = try Self.simulatedCrowd.map { name throws in try UserID(name) }
        _ = try await FaultyRecordings(users: crowd, takes: 5, faultRate: 0, rate: 25).record(into: folder)
        let loaded = try DatasetLoader(folder: folder).load()
        var labelings = [("the motion's labels", loaded)]
        if promptLabels { labelings.append(("the prompt's labels", try promptLabeled(copyOf: folder))) }
        var accuracies = Array(repeating: [Double](), count: labelings.count)
        var adapted = Array(
            repeating: [[(accuracy: Double, seconds: Double)]](repeating: [], count: adaptations.count),
            count: labelings.count)
        var scores = Array(repeating: EventScore.none, count: labelings.count)
        for fold in try CrossValidation(loaded).folds {
            let person = fold.user
            for (index, (labels, data)) in labelings.enumerated() {
                let training = try SessionSelection(users: crowd.filter { $0 != person }).apply(to: data)
                let chosen = settings(for: training, features: [], window: nil, copies: simulatedAugment, epochs: nil)
                let experiment = try Experiment(
                    name: "simulated", features: chosen.features, window: chosen.window, layers: layers,
                    training: training, augmentation: AugmentationPlan(chosen.augmentations),
                    options: TrainingOptions(
                        epochs: chosen.epochs, batchSize: chosen.batchSize,
                        randomConvolutions: chosen.randomConvolutions, labelSmoothing: chosen.labelSmoothing,
                        averagedEpochs: chosen.averagedEpochs),
                    validation: nil, test: fold.test)
                if person == crowd[0], index == 0 {
                    print("the simulated crowd, each person left out in turn: \(experiment.summary)")
                }
                let runs = try seeds.map { seed in try detectionRun(experiment, seed: seed, test: fold.test) }
                accuracies[index].append(median(runs.compactMap { $0.run.evaluation?.accuracy }))
                scores[index] = runs.map(\.score).reduce(scores[index], +)
                print(
                    "  \(person.rawValue) left out, trained on \(labels): "
                        + Experiment.Run.foldSummary(runs.map(\.run))
                        + (promptLabels
                            ? "; " + Self.detectionSummary(runs.map(\.score).reduce(EventScore.none, +)) : ""))
                reportAdaptations(runs.map(\.adapted), into: &adapted[index])
            }
        }
        for (index, (labels, _)) in labelings.enumerated() {
            print(
                "the simulated crowd, leave one person out, \(seeds.count.counting("seed")), trained on \(labels): "
                    + Spread(accuracies[index]).summary(of: "window accuracy", over: "people")
                    + (promptLabels ? "; " + Self.detectionSummary(scores[index]) : ""))
            summarizeAdaptations(adapted[index], over: "people")
        }
    }

    /// A copy of the folder whose sessions are labeled over their prompts, as recorded before alignment.
    private func promptLabeled(copyOf folder: RecordingsFolder) throws -> Dataset {
        let copy = RecordingsFolder(FilePath(folder.root.string + "-prompted"))
        try FileManager.default.copyItem(atPath: folder.root.string, toPath: copy.root.string)
        let archive = try Archive(folder: copy)
        _ = try archive.align(try archive.catalog.sessions().map(\.id), prompted: true)
        return try DatasetLoader(folder: copy).load()
    }

    private func detectionRun(
        _ experiment: Experiment, seed: UInt64, test: Dataset
    ) throws -> (run: Experiment.Run, score: EventScore, adapted: [Experiment.Run]) {
        let (model, runs) = try adaptedRuns(experiment, seed: seed, test: test)
        return (
            runs.trained, promptLabels ? try EventScore(model: model, sessions: test.sessions) : .none, runs.adapted
        )
    }

    /// What --adapt-unlabeled re-estimates batch norm's statistics on, each scored on the test
    /// windows: the test windows themselves, and as a control, the training windows (those of
    /// training measured without dropout, as inference runs).
    /// `adaptationsAlways`, then with --turned-views the turned views' two.
    var adaptations: [String] {
        Self.adaptationsAlways
            + (turnedViews.map { degrees in
                [
                    "as trained, its probabilities averaged over the recordings and six copies turned by ±"
                        + "\(degrees.shortText)° about each axis",
                    "the same with the statistics adapted (no self-training)",
                ]
            } ?? [])
    }

    static let adaptationsAlways = [
        "batch norm and the random convolutions' statistics adapted to the unlabeled windows of the person left out "
            + "(transductive)",
        "and self-trained on its confident windows, the statistics adapted again",
        "control: batch norm re-estimated on the training windows (no copies, no dropout)",
        "the statistics adapted, then the classes balanced over the person's windows (--unlabeled --balanced "
            + "--no-self-training)",
        "the statistics adapted and self-trained, then the classes balanced (--unlabeled --balanced)",
    ]

    /// The model trained with `seed` and its run; with --adapt-unlabeled, also the runs of copies
    /// whose batch norm's statistics were re-estimated on each of `adaptations`' windows.
    private func adaptedRuns(
        _ experiment: Experiment, seed: UInt64, test testSet: Dataset
    ) throws -> (model: GestureModel, runs: (trained: Experiment.Run, adapted: [Experiment.Run])) {
        let start = ContinuousClock.now
        let model = try classified(experiment).train(seed: seed).model
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        let test = experiment.test!.sequences
        let run = { (adapt: () throws -> GestureModel) throws in
            let start = ContinuousClock.now
            let adapted = try adapt()
            return Experiment.Run(
                validationAccuracy: nil, evaluation: Evaluation(model: adapted, sequences: test),
                seconds: seconds + (ContinuousClock.now - start) / .seconds(1))
        }
        let trained = try run { model }
        guard adaptUnlabeled else { return (model, (trained, [])) }
        let personalizer = Personalizer(base: model, baseName: experiment.name, classNames: model.classNames)
        let adapted = [
            try run { try model.adaptingNormalization(to: test) },
            try run { try personalizer.adaptingNormalization(test, user: test[0].user, selfTraining: selfTraining) },
            try run { try model.adaptingNormalization(to: experiment.training.sequences) },
            try run { try personalizer.adaptingNormalization(test, user: test[0].user, balancingClasses: true) },
            try run {
                try personalizer.adaptingNormalization(
                    test, user: test[0].user, selfTraining: selfTraining, balancingClasses: true)
            },
        ]
        guard let turnedViews else { return (model, (trained, adapted)) }
        let views = try TurnedViews(
            testSet, degrees: turnedViews, features: model.featureNames, classNames: model.classNames)
        let scored = { (adapt: () throws -> GestureModel) throws in
            let start = ContinuousClock.now
            let evaluation = views.evaluation(of: try adapt())
            return Experiment.Run(
                validationAccuracy: nil, evaluation: evaluation,
                seconds: seconds + (ContinuousClock.now - start) / .seconds(1))
        }
        let turned = [try scored { model }, try scored { try model.adaptingNormalization(to: test) }]
        return (model, (trained, adapted + turned))
    }

    /// Each adaptation's runs of one fold (`runs` holds each seed's), their median accuracy and
    /// seconds (training and adapting) added to `folds`.
    private func reportAdaptations(
        _ runs: [[Experiment.Run]], into folds: inout [[(accuracy: Double, seconds: Double)]]
    ) {
        for (index, name) in adaptations.enumerated() where runs.allSatisfy({ $0.count > index }) {
            let fold = runs.map { $0[index] }
            folds[index].append((median(fold.compactMap { $0.evaluation?.accuracy }), median(fold.map(\.seconds))))
            print("    \(name): " + Experiment.Run.foldSummary(fold))
        }
    }

    private func summarizeAdaptations(_ folds: [[(accuracy: Double, seconds: Double)]], over people: String) {
        for (name, values) in zip(adaptations, folds) where !values.isEmpty {
            print(
                "  \(name): " + Spread(values.map(\.accuracy)).summary(of: "window accuracy", over: people)
                    + String(format: "; %.1f s of training and adapting a fold (median)", median(values.map(\.seconds)))
            )
        }
    }

    static func detectionSummary(_ score: EventScore) -> String {
        guard !score.delays.isEmpty else { return "detect --evaluate: none of \(score.events) gestures found" }
        return String(
            format:
                "detect --evaluate: %d of %d gestures found, median delay %.2f s (p90 %.2f s), %d false (%.2f a minute)",
            score.found, score.events, median(score.delays), percentile(score.delays, 0.9), score.falseDetections,
            score.falseDetectionsPerMinute)
    }

    /// Leave one subject out: each subject in turn is the test, the model trained from scratch on
    /// the other six, its epoch chosen by its training loss (no subject is looked at to choose it).
    private func measureSeglearn(_ loaded: Dataset) throws {
        var folds: [(subject: String, runs: [Experiment.Run])] = []
        var adapted = [[(accuracy: Double, seconds: Double)]](repeating: [], count: adaptations.count)
        for fold in try CrossValidation(loaded.of(Self.seglearnSubjects)).folds {
            let subject = fold.user.rawValue
            let chosen = settings(
                for: fold.training, features: seglearnFeatures, window: seglearnWindow,
                copies: seglearnAsRecorded ? [] : seglearnAugment, epochs: seglearnEpochs)
            let experiment = try Experiment(
                name: "seglearn-watch", features: chosen.features, window: chosen.window,
                windowsPerChunk: seglearnChunk, layers: layers, training: fold.training,
                augmentation: AugmentationPlan(
                    chosen.augmentations, maximumRotation: seglearnRotation, maximumWarp: seglearnWarp,
                    maximumScale: seglearnScale),
                options: TrainingOptions(
                    epochs: chosen.epochs, batchSize: chosen.batchSize, schedule: seglearnSchedule,
                    randomConvolutions: chosen.randomConvolutions, labelSmoothing: chosen.labelSmoothing,
                    averagedEpochs: chosen.averagedEpochs),
                validation: nil, test: fold.test)
            if folds.isEmpty { print("seglearn-watch, each subject left out in turn: \(experiment.summary)") }
            let pairs = try seeds.map { seed -> (trained: Experiment.Run, adapted: [Experiment.Run]) in
                guard adaptUnlabeled else { return (try run(experiment, seed: seed), []) }
                return try adaptedRuns(experiment, seed: seed, test: fold.test).runs
            }
            let runs = pairs.map(\.trained)
            folds.append((subject, runs))
            print("  \(subject) left out: " + Experiment.Run.foldSummary(runs))
            reportAdaptations(pairs.map(\.adapted), into: &adapted)
            let mistakes = Evaluation.largestMistakes(of: runs.compactMap(\.evaluation), count: 3)
            print("    most confused, over the seeds: " + mistakes.listed)
        }
        let accuracies = folds.map { median($0.runs.compactMap { $0.evaluation?.accuracy }) }
        print(
            "seglearn-watch, leave one subject out, \(seeds.count.counting("seed")): "
                + Spread(accuracies).summary(of: "window accuracy", over: "subjects")
                + String(
                    format: "; %.1f s of training a fold (median)", median(folds.flatMap { $0.runs.map(\.seconds) })))
        summarizeAdaptations(adapted, over: "subjects")
    }

    private func measureBasicMotions(_ loaded: Dataset) throws {
        let experiment = { (training: Dataset, test: Dataset) in
            let chosen = self.settings(
                for: training, features: self.basicMotionsFeatures, window: self.basicMotionsWindow,
                copies: self.basicMotionsAugment, epochs: self.basicMotionsEpochs, batchSize: self.basicMotionsBatch)
            return try Experiment(
                name: "basic-motions", features: chosen.features, window: chosen.window, layers: self.layers,
                training: training,
                augmentation: AugmentationPlan(
                    chosen.augmentations, maximumRotation: self.basicMotionsRotation,
                    maximumWarp: self.basicMotionsWarp, maximumScale: self.basicMotionsScale),
                options: TrainingOptions(
                    epochs: chosen.epochs, batchSize: chosen.batchSize, schedule: self.basicMotionsSchedule,
                    randomConvolutions: chosen.randomConvolutions, labelSmoothing: chosen.labelSmoothing,
                    averagedEpochs: chosen.averagedEpochs),
                validation: nil, test: test)
        }
        guard validationOnly else {
            try report(experiment(loaded.of(["train"]), loaded.of(["test"])))
            return
        }
        let cases = try loaded.of(["train"]).sessions
        var folds: [Double] = []
        for fold in basicMotionsFolds {
            let held = { (index: Int) in index % Self.basicMotionsFoldCount == fold - 1 }
            let runs = try report(
                experiment(
                    Dataset(sessions: cases.indices.filter { !held($0) }.map { cases[$0] }),
                    Dataset(sessions: cases.indices.filter(held).map { cases[$0] })),
                fold: "fold \(fold) of the train cases")
            folds.append(median(runs.compactMap { $0.evaluation?.accuracy }))
        }
        print(
            String(
                format: "basic-motions: mean over %d folds of the median window accuracy %.4f", folds.count,
                folds.reduce(0, +) / Double(folds.count)))
    }

    /// A dataset's settings as its options give them (no features: `gesture train`'s), with
    /// --no-copies and --first-defaults.
    private func settings(
        for training: Dataset, features: [String], window: Int?, copies: [Augmentation], epochs: Int?,
        batchSize: Int? = nil
    ) -> TrainingRecipe {
        if firstDefaults {
            return TrainingRecipe.firstDefaults(
                for: training, features: features.isEmpty ? nil : features, window: window, epochs: epochs,
                batchSize: batchSize)
        }
        return TrainingRecipe(
            for: training, features: features.isEmpty ? nil : features, window: window,
            augmentations: noCopies ? [] : copies, epochs: epochs, batchSize: batchSize,
            labelSmoothing: labelSmoothing.map(Float.init), averagedEpochs: averageEpochs)
    }

    enum Classifier: String, ExpressibleByArgument, CaseIterable {
        case network
        case randomConvolutions = "random-convolutions"
        case both
    }

    /// A run of the network (or an ensemble), of random convolutions, or of both.
    private func run(_ experiment: Experiment, seed: UInt64) throws -> Experiment.Run {
        guard classifier == .randomConvolutions else {
            return try classified(experiment).run(seed: seed, ensemble: ensemble)
        }
        return try experiment.run(seed: seed, randomConvolutions: convolutionSettings(for: experiment))
    }

    /// `experiment` with the classifier asked for, or the recipe's (with this bench's settings).
    private func classified(_ experiment: Experiment) -> Experiment {
        var classified = experiment
        let withConvolutions = classifier.map { $0 == .both } ?? (experiment.options.randomConvolutions != nil)
        classified.options.randomConvolutions = withConvolutions ? convolutionSettings(for: experiment) : nil
        return classified
    }

    private func convolutionSettings(for experiment: Experiment) -> RandomConvolutionClassifier.Settings {
        RandomConvolutionClassifier.Settings(
            seconds: history, rate: experiment.training.rate, outputCount: convolutionFeatures, penalty: ridgePenalty)
    }

    @discardableResult
    private func report(_ experiment: Experiment, fold: String? = nil) throws -> [Experiment.Run] {
        print(
            "\(experiment.name)\(fold.map { " (\($0))" } ?? ""): \(experiment.summary), seeds \(seeds.map(String.init).joined(separator: " "))"
        )
        var runs: [Experiment.Run] = []
        for seed in seeds {
            let run = try run(experiment, seed: seed)
            runs.append(run)
            print("  seed \(seed): " + run.summary)
        }
        let medianOf = { (figure: (Experiment.Run) -> Double?) in
            let values = runs.compactMap(figure)
            return values.isEmpty ? "-" : String(format: "%.4f", median(values))
        }
        print(
            "  median: validation accuracy \(medianOf(\.validationAccuracy)), window accuracy \(medianOf { $0.evaluation?.accuracy }), "
                + "macro F1 \(medianOf { $0.evaluation?.macroF1 }), session accuracy \(medianOf { $0.evaluation?.sessionAccuracy }), "
                + String(format: "trained in %.1f s", median(runs.map(\.seconds)))
        )
        // The median run's full evaluation, confusion matrix included.
        if fold == nil,
            let middle = runs.filter({ $0.evaluation != nil }).sorted(by: {
                $0.evaluation!.accuracy < $1.evaluation!.accuracy
            })
            .dropFirst(runs.count / 2).first?.evaluation
        {
            print("\nthe median run:\n" + Reports.evaluationText(middle) + "\n")
        }
        return runs
    }
}

extension Dataset {
    /// The sessions of these users.
    fileprivate func of(_ users: [String]) throws -> Dataset {
        try SessionSelection(users: users.map { name in try UserID(name) }).apply(to: self)
    }
}

/// A shared dataset and how `gesture import` reads it, as README.md's worked example imports it.
struct ImportedDataset {
    var file: String
    var mapping: String
    var options: ImportOptions

    static let seglearnWatch = ImportedDataset(
        file: "seglearn-watch/seglearn-watch.csv",
        mapping:
            "user=subject,session=recording,label=exercise,accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz",
        options: ImportOptions(sampleRate: 50))

    /// The archive's `split` column becomes the user, so its train and test cases stay apart; the
    /// README imports them all as one user `bm` instead.
    static let basicMotions = ImportedDataset(
        file: "basic-motions/basic-motions.csv",
        mapping: "user=split,session=case,label=activity,accelX=ax,accelY=ay,accelZ=az,gyroX=gx,gyroY=gy,gyroZ=gz",
        options: ImportOptions(sampleRate: 10, gravityRemoved: true))

    func run(from datasets: String, into folder: RecordingsFolder) throws {
        let summary = try Importer(folder: folder, mapping: ColumnMapping(mapping), options: options)
            .run(FilePath(datasets).appending(file))
        print(
            "imported \(file): \(summary.sessions.count) sessions, \(summary.users.count) users, \(summary.rowCount) samples"
        )
    }
}

extension ImportOptions {
    init(sampleRate: Double, gravityRemoved: Bool = false) {
        self.init()
        self.sampleRate = sampleRate
        self.gravityRemoved = gravityRemoved
    }
}

extension Augmentation: ExpressibleByArgument {}
extension LearningRateSchedule: ExpressibleByArgument {}
