import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureExperiments
import GestureLearning
import GestureRecording
import struct SystemPackage.FilePath

struct AccuracyBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accuracy",
        abstract: "Accuracy on people nobody here recorded: seglearn-watch by subject and basic-motions by its own split.",
        discussion: """
            Imports ../shared/datasets into a temporary recordings folder, as `gesture import` does, then trains \
            once per seed and prints each run and the medians. seglearn-watch trains on s01–s05, picks the epoch \
            on s06 and is tested on s07; basic-motions trains on its train cases and is tested on its test cases.
            """)

    @Option(help: "The folder holding seglearn-watch/ and basic-motions/.")
    var datasets = "../shared/datasets"

    @Option(parsing: .upToNextOption, help: "Seeds to train with; the figures are their medians.")
    var seeds: [UInt64] = [1, 2, 3]

    @Option var epochs = 30

    // Chosen by validating on each of s01–s06 in turn, trained on the other five (2 seeds each;
    // s07 left out): half a second of rotation rate, gravity and user acceleration averaged 0.82,
    // raw accelerometer and gyroscope 0.79 (0.81 with one-second windows), the book's six 0.74.
    @Option(help: "seglearn-watch's samples per window (50 Hz).")
    var seglearnWindow = 25

    @Option(parsing: .upToNextOption, help: "seglearn-watch's features.")
    var seglearnFeatures = ["rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ"]

    @Option(help: "basic-motions' samples per window (10 Hz).")
    var basicMotionsWindow = 10

    @Option(parsing: .upToNextOption, help: "basic-motions' features.")
    var basicMotionsFeatures = TrainingData.defaultFeatures

    @Flag(help: "Score seglearn's validation subject only, to choose window and features without seeing s07.")
    var validationOnly = false

    @Option(help: "With --validation-only: the subject of s01–s06 to validate on, the other five trained on.")
    var validationSubject = "s06"

    func run() throws {
        guard validationSubject == "s06" || validationOnly && (1...6).map({ "s0\($0)" }).contains(validationSubject) else {
            throw ValidationError("--validation-subject is one of s01–s06 and needs --validation-only: s07 is the test")
        }
        let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-accuracy-\(getpid())").path)
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        let recordings = RecordingsFolder(folder)
        try ImportedDataset.seglearnWatch.run(from: datasets, into: recordings)
        try ImportedDataset.basicMotions.run(from: datasets, into: recordings)
        let loaded = try DatasetLoader(folder: recordings).load()

        let seglearn = try Experiment(
            name: "seglearn-watch", dataset: loaded, features: seglearnFeatures, window: seglearnWindow,
            training: users("s01", "s02", "s03", "s04", "s05", "s06").filter { $0.rawValue != validationSubject },
            validation: users(validationSubject),
            test: validationOnly ? [] : users("s07"))
        try report(seglearn)
        if !validationOnly {
            try report(Experiment(name: "basic-motions", dataset: loaded, features: basicMotionsFeatures, window: basicMotionsWindow,
                                  training: users("train"), validation: [], test: users("test")))
        }
    }

    private func report(_ experiment: Experiment) throws {
        print("\(experiment.name): \(experiment.summary), \(epochs) epochs, seeds \(seeds.map(String.init).joined(separator: " "))")
        var runs: [Experiment.Run] = []
        for seed in seeds {
            let run = try experiment.run(epochs: epochs, seed: seed)
            runs.append(run)
            print("  seed \(seed): " + run.summary)
        }
        let medianOf = { (figure: (Experiment.Run) -> Double?) in
            let values = runs.compactMap(figure)
            return values.isEmpty ? "-" : String(format: "%.4f", median(values))
        }
        print("  median: validation accuracy \(medianOf(\.validationAccuracy)), window accuracy \(medianOf { $0.evaluation?.accuracy }), "
              + "macro F1 \(medianOf { $0.evaluation?.macroF1 }), session accuracy \(medianOf { $0.evaluation?.sessionAccuracy })")
        // The median run's full evaluation, confusion matrix included.
        if let middle = runs.filter({ $0.evaluation != nil }).sorted(by: { $0.evaluation!.accuracy < $1.evaluation!.accuracy })
            .dropFirst(runs.count / 2).first?.evaluation {
            print("\nthe median run:\n" + Reports.evaluationText(middle) + "\n")
        }
    }

    private func users(_ names: String...) throws -> [UserID] {
        try names.map { name in try UserID(name) }
    }
}

/// A shared dataset and how `gesture import` reads it, as README.md's worked example imports it.
struct ImportedDataset {
    var file: String
    var mapping: String
    var options: ImportOptions

    static let seglearnWatch = ImportedDataset(
        file: "seglearn-watch/seglearn-watch.csv",
        mapping: "user=subject,session=recording,label=exercise,accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz",
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
        print("imported \(file): \(summary.sessions.count) sessions, \(summary.users.count) users, \(summary.rowCount) samples")
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
                parts.append(String(format: "test window accuracy %.4f, macro F1 %.4f, session accuracy %.4f",
                                    evaluation.accuracy, evaluation.macroF1, evaluation.sessionAccuracy))
            }
            return parts.joined(separator: "; ")
        }
    }

    var name: String
    var description: ModelDescription
    var training: TrainingData
    var validation: TrainingData?
    var test: TrainingData?

    init(name: String, dataset: Dataset, features: [String], window: Int, training: [UserID], validation: [UserID],
         test: [UserID]) throws {
        let chosen = try features.map { name throws(UnknownFeature) in try Feature(named: name) }
        func sessions(of users: [UserID], classNames: [String]?) throws -> TrainingData? {
            guard !users.isEmpty else { return nil }
            return try TrainingData(dataset: SessionSelection(users: users).apply(to: dataset), features: chosen, classNames: classNames)
        }
        self.name = name
        self.training = try sessions(of: training, classNames: nil)!
        self.validation = try sessions(of: validation, classNames: self.training.classNames)
        self.test = try sessions(of: test, classNames: self.training.classNames)
        description = ModelDescription(featureNames: features, windowing: Windowing(window: window),
                                       samplingRate: self.training.rate, classNames: self.training.classNames)
    }

    var summary: String {
        let counts = [("train", training), ("validation", validation), ("test", test)].compactMap { part, data in
            data.map { "\($0.sequences.count) \(part)" }
        }
        return "\(counts.joined(separator: " / ")) sessions, \(description.classNames.count) classes, "
            + "window \(description.windowing.window) at \(String(format: "%g", training.rate)) Hz, features \(description.featureNames.joined(separator: " "))"
    }

    func run(epochs: Int, seed: UInt64) throws -> Run {
        let trainer = Trainer(description: description, options: TrainingOptions(epochs: epochs, seed: seed))
        let result = try trainer.train(training.sequences, validation: validation?.sequences ?? [])
        return Run(validationAccuracy: result.history.first { $0.epoch == result.bestEpoch }?.validationAccuracy,
                   evaluation: test.map { Evaluation(model: result.model, sequences: $0.sequences) })
    }
}
