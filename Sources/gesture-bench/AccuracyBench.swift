import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureExperiments
import GestureLearning
import GestureStore

import struct SystemPackage.FilePath

struct AccuracyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract:
            "Accuracy on people nobody here recorded: seglearn-watch by subject and basic-motions by its own split.",
        discussion: """
            Imports ../shared/datasets into a temporary recordings folder, as `gesture import` does, then trains \
            once per seed and prints each run and the medians. seglearn-watch trains on s01–s05, picks the epoch \
            on s06 and is tested on s07; basic-motions trains on its train cases and is tested on its test cases. \
            With --validation-only, neither test set is read: seglearn validates on each of --validation-subjects \
            (trained on the other subjects of s01–s06), basic-motions on each of --basic-motions-folds of its train cases.
            """)

    enum Source: String, ExpressibleByArgument, CaseIterable {
        case seglearnWatch = "seglearn-watch"
        case basicMotions = "basic-motions"
    }

    @Option(help: "The folder holding seglearn-watch/ and basic-motions/.")
    var datasets = "../shared/datasets"

    @Option(parsing: .upToNextOption, help: "The datasets to measure.")
    var only: [Source] = Source.allCases

    @Option(parsing: .upToNextOption, help: "Seeds to train with; the figures are their medians.")
    var seeds: [UInt64] = [1, 2, 3]

    // Every default below was chosen by --validation-only, the test sets unseen; README.md's
    // "Accuracy on data nobody here recorded" gives the figures behind each choice.
    @Option(help: "seglearn-watch's epochs.")
    var seglearnEpochs = 30

    @Option(help: "seglearn-watch's learning-rate schedule, as `gesture train --schedule`.")
    var seglearnSchedule: LearningRateSchedule = .constant

    @Option(help: "seglearn-watch's samples per window (50 Hz).")
    var seglearnWindow = 25

    @Option(parsing: .upToNextOption, help: "seglearn-watch's features.")
    var seglearnFeatures = ["rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ"]

    @Option(help: "seglearn-watch's import: rows to mirror onto the other wrist, as `gesture import --mirror`.")
    var seglearnMirror = "side=left"

    @Option(parsing: .upToNextOption, help: "seglearn-watch's training augmentations, as `gesture train --augment`.")
    var seglearnAugment: [Augmentation] = [.mirror, .rotate, .rotate]

    @Flag(help: "seglearn-watch without --seglearn-mirror and --seglearn-augment: both wrists as recorded, no copies.")
    var seglearnAsRecorded = false

    @Option(
        help:
            "The largest angle --seglearn-augment rotate turns the watch by, in degrees, as `gesture train --rotation`."
    )
    var seglearnRotation = 15.0

    @Option(help: "basic-motions' samples per window (10 Hz).")
    var basicMotionsWindow = 10

    @Option(help: "basic-motions' epochs.")
    var basicMotionsEpochs = 100

    @Option(help: "basic-motions' chunks per batch; its 40 train cases are one chunk each.")
    var basicMotionsBatch = 32

    @Option(help: "basic-motions' learning-rate schedule, as `gesture train --schedule`.")
    var basicMotionsSchedule: LearningRateSchedule = .constant

    @Option(parsing: .upToNextOption, help: "basic-motions' training augmentations, as `gesture train --augment`.")
    var basicMotionsAugment: [Augmentation] = []

    @Option(help: "The largest angle --basic-motions-augment rotate turns the watch by, in degrees.")
    var basicMotionsRotation = 15.0

    @Option(parsing: .upToNextOption, help: "basic-motions' features.")
    var basicMotionsFeatures = TrainingData.defaultFeatures

    @Flag(help: "Score validation folds only, to choose settings without seeing either test set.")
    var validationOnly = false

    @Option(
        parsing: .upToNextOption,
        help:
            "With --validation-only: seglearn's subjects of s01–s06 to validate on in turn, each trained on the other five."
    )
    var validationSubjects = ["s01", "s02", "s03", "s04", "s05", "s06"]

    @Option(
        parsing: .upToNextOption,
        help:
            "With --validation-only: basic-motions' folds to score in turn, of 1–\(basicMotionsFoldCount); fold k holds the train cases whose position is k modulo \(basicMotionsFoldCount), two of each activity."
    )
    var basicMotionsFolds = Array(1...basicMotionsFoldCount)

    static let basicMotionsFoldCount = 5
    private static let seglearnSubjects = (1...6).map { "s0\($0)" }

    func validate() throws {
        guard validationSubjects.allSatisfy(Self.seglearnSubjects.contains) else {
            throw ValidationError("--validation-subjects are of s01–s06: s07 is the test")
        }
        guard basicMotionsFolds.allSatisfy((1...Self.basicMotionsFoldCount).contains) else {
            throw ValidationError("--basic-motions-folds are of 1–\(Self.basicMotionsFoldCount)")
        }
    }

    func run() throws {
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
        let loaded = try DatasetLoader(folder: recordings).load()
        if only.contains(.seglearnWatch) { try measureSeglearn(loaded) }
        if only.contains(.basicMotions) { try measureBasicMotions(loaded) }
    }

    private func measureSeglearn(_ loaded: Dataset) throws {
        let experiment = { (training: [String], validation: String, test: [String]) in
            try Experiment(
                name: "seglearn-watch", features: self.seglearnFeatures, window: self.seglearnWindow,
                training: loaded.of(training),
                augmentation: AugmentationPlan(
                    self.seglearnAsRecorded ? [] : self.seglearnAugment, maximumRotation: self.seglearnRotation),
                options: TrainingOptions(epochs: self.seglearnEpochs, schedule: self.seglearnSchedule),
                validation: loaded.of([validation]), test: test.isEmpty ? nil : loaded.of(test))
        }
        guard validationOnly else {
            try report(experiment(["s01", "s02", "s03", "s04", "s05"], "s06", ["s07"]))
            return
        }
        var folds: [Double] = []
        for subject in validationSubjects {
            let runs = try report(
                experiment(Self.seglearnSubjects.filter { $0 != subject }, subject, []),
                fold: "validating on \(subject)")
            folds.append(median(runs.compactMap(\.validationAccuracy)))
        }
        print(
            String(
                format: "seglearn-watch: mean over %d subjects of the median validation accuracy %.4f", folds.count,
                folds.reduce(0, +) / Double(folds.count)))
    }

    private func measureBasicMotions(_ loaded: Dataset) throws {
        let experiment = { (training: Dataset, test: Dataset) in
            try Experiment(
                name: "basic-motions", features: self.basicMotionsFeatures, window: self.basicMotionsWindow,
                training: training,
                augmentation: AugmentationPlan(self.basicMotionsAugment, maximumRotation: self.basicMotionsRotation),
                options: TrainingOptions(
                    epochs: self.basicMotionsEpochs, batchSize: self.basicMotionsBatch,
                    schedule: self.basicMotionsSchedule),
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

    @discardableResult
    private func report(_ experiment: Experiment, fold: String? = nil) throws -> [Experiment.Run] {
        print(
            "\(experiment.name)\(fold.map { " (\($0))" } ?? ""): \(experiment.summary), seeds \(seeds.map(String.init).joined(separator: " "))"
        )
        var runs: [Experiment.Run] = []
        for seed in seeds {
            let run = try experiment.run(seed: seed)
            runs.append(run)
            print("  seed \(seed): " + run.summary)
        }
        let medianOf = { (figure: (Experiment.Run) -> Double?) in
            let values = runs.compactMap(figure)
            return values.isEmpty ? "-" : String(format: "%.4f", median(values))
        }
        print(
            "  median: validation accuracy \(medianOf(\.validationAccuracy)), window accuracy \(medianOf { $0.evaluation?.accuracy }), "
                + "macro F1 \(medianOf { $0.evaluation?.macroF1 }), session accuracy \(medianOf { $0.evaluation?.sessionAccuracy })"
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

/// Training on some users' sessions, choosing the epoch on others', and testing on the rest.
struct Experiment {
    struct Run {
        /// Window accuracy on the validation sessions at the epoch kept.
        var validationAccuracy: Double?
        var evaluation: Evaluation?

        var summary: String {
            var parts: [String] = []
            if let validationAccuracy { parts.append(String(format: "validation accuracy %.4f", validationAccuracy)) }
            if let evaluation {
                parts.append(
                    String(
                        format: "test window accuracy %.4f, macro F1 %.4f, session accuracy %.4f (%d of %d)",
                        evaluation.accuracy, evaluation.macroF1, evaluation.sessionAccuracy,
                        evaluation.sessionsRecognised, evaluation.sessionsWithGesture))
            }
            return parts.joined(separator: "; ")
        }
    }

    var name: String
    var description: ModelDescription
    var trainingSessions: Dataset
    /// The training sessions without augmentation.
    var training: TrainingData
    /// Made again for each run, with the run's seed, as `gesture train` makes it.
    var augmentation: AugmentationPlan
    /// Each run's, but for its seed.
    var options: TrainingOptions
    var validation: TrainingData?
    var test: TrainingData?

    init(
        name: String, features: [String], window: Int, training: Dataset, augmentation: AugmentationPlan,
        options: TrainingOptions, validation: Dataset?, test: Dataset?
    ) throws {
        let chosen = try features.map { name throws(UnknownFeature) in try Feature(named: name) }
        self.name = name
        trainingSessions = training
        self.training = try TrainingData(dataset: training, features: chosen)
        self.augmentation = augmentation
        self.options = options
        let classNames = self.training.classNames
        self.validation = try validation.map { dataset throws(AnalysisError) in
            try TrainingData(dataset: dataset, features: chosen, classNames: classNames)
        }
        self.test = try test.map { dataset throws(AnalysisError) in
            try TrainingData(dataset: dataset, features: chosen, classNames: classNames)
        }
        description = ModelDescription(
            featureNames: features, windowing: Windowing(window: window),
            samplingRate: self.training.rate, classNames: self.training.classNames)
    }

    var summary: String {
        let counts = [("train", training), ("validation", validation), ("test", test)].compactMap { part, data in
            data.map { "\($0.sequences.count) \(part)" }
        }
        let augmented =
            augmentation.augmentations.isEmpty
            ? "" : " (and \(augmentation.augmentations.map(\.rawValue).joined(separator: ", ")) copies)"
        return "\(counts.joined(separator: " / ")) sessions\(augmented), \(description.classNames.count) classes, "
            + "window \(description.windowing.window) at \(String(format: "%g", training.rate)) Hz, features \(description.featureNames.joined(separator: " ")), "
            + "\(options.epochs) epochs of batches of \(options.batchSize), learning rate \(options.learningRate) \(options.schedule.rawValue)"
    }

    func run(seed: UInt64) throws -> Run {
        var options = options
        options.seed = seed
        let trainer = Trainer(model: description, options: options)
        var plan = augmentation
        plan.seed = seed
        let sequences =
            plan.augmentations.isEmpty
            ? training.sequences
            : try TrainingData(
                dataset: trainingSessions.augmented(by: plan), features: training.features,
                classNames: training.classNames
            ).sequences
        let result = try trainer.train(sequences, validation: validation?.sequences ?? [])
        return Run(
            validationAccuracy: result.history.first { $0.epoch == result.bestEpoch }?.validationAccuracy,
            evaluation: test.map { Evaluation(model: result.model, sequences: $0.sequences) })
    }
}
extension Augmentation: ExpressibleByArgument {}
extension LearningRateSchedule: ExpressibleByArgument {}
