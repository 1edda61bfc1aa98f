import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning

/// Leaving each person out in turn: each fold trains on everyone else and tests on that person,
/// so that a figure says what a new person will see. Choose settings by the mean over the folds,
/// never by one.
public struct CrossValidation: Sendable {
    public let dataset: Dataset
    /// Everyone in the dataset, sorted: one fold each.
    public let users: [UserID]

    public init(_ dataset: Dataset) throws(AnalysisError) {
        users = Set(dataset.sessions.map(\.user)).sorted()
        guard users.count >= 2 else {
            throw AnalysisError(
                "leaving a person out needs at least two people; there \(users.count == 1 ? "is" : "are") "
                    + (users.isEmpty ? "none" : users.map(\.rawValue).joined(separator: ", ")))
        }
        self.dataset = dataset
    }

    /// One fold: the person left out, the sessions to train on and those to test on.
    public struct Fold: Sendable {
        public var user: UserID
        public var training: Dataset
        public var test: Dataset
    }

    public var folds: [Fold] {
        users.map { user in
            Fold(
                user: user, training: Dataset(sessions: dataset.sessions.filter { $0.user != user }),
                test: Dataset(sessions: dataset.sessions.filter { $0.user == user }))
        }
    }

    /// Trains each fold's experiment `runs` times, from `seed` on, telling each fold's result as it
    /// comes; returns the folds' summary. Once `isCancelled` says so, the training under way stops
    /// at its next batch and its fold is left out: the summary holds the folds done before.
    public func run(
        runs: Int, seed: UInt64, experiment: (Fold) throws -> Experiment, isCancelled: () -> Bool = { false },
        each: (FoldResult) throws -> Void
    ) throws -> CrossValidationSummary {
        var results: [FoldResult] = []
        folds: for fold in folds {
            let trained = try experiment(fold)
            var done: [Experiment.Run] = []
            for run in 0..<UInt64(runs) {
                guard !isCancelled(), let result = try trained.run(seed: seed + run, isCancelled: isCancelled)
                else { break folds }
                done.append(result)
            }
            let result = FoldResult(user: fold.user, runs: done)
            try each(result)
            results.append(result)
        }
        return CrossValidationSummary(results, runs: runs)
    }
}

/// One person left out: the median of each figure over the runs.
public struct FoldResult: Sendable, Encodable {
    public var user: String
    public var windowAccuracy: Double
    public var macroF1: Double
    public var sessionAccuracy: Double
    public var trainingSeconds: Double
    /// The three largest shares of a class's windows taken for another, over the runs together.
    public var mostConfused: [Mistake]

    public init(user: UserID, runs: [Experiment.Run]) {
        let evaluations = runs.compactMap(\.evaluation)
        self.user = user.rawValue
        windowAccuracy = evaluations.map(\.accuracy).median ?? .nan
        macroF1 = evaluations.map(\.macroF1).median ?? .nan
        sessionAccuracy = evaluations.map(\.sessionAccuracy).median ?? .nan
        trainingSeconds = runs.map(\.seconds).median ?? .nan
        mostConfused = Evaluation.largestMistakes(of: evaluations, count: 3)
    }

    public var line: String {
        String(
            format: "window accuracy %.4f, macro F1 %.4f, session accuracy %.4f; trained in %.1f s", windowAccuracy,
            macroF1, sessionAccuracy, trainingSeconds) + "; most confused: " + mostConfused.listed
    }
}

/// The folds' window accuracy: mean, spread, least and most.
public struct CrossValidationSummary: Sendable, Encodable {
    public var folds: Int
    public var meanWindowAccuracy: Double
    public var standardDeviation: Double
    public var least: Double
    public var most: Double
    public var meanSessionAccuracy: Double
    public var trainingSeconds: Double
    private var runs: Int

    private enum CodingKeys: String, CodingKey {
        case folds, meanWindowAccuracy, standardDeviation, least, most, meanSessionAccuracy, trainingSeconds
    }

    public init(_ folds: [FoldResult], runs: Int) {
        let spread = Spread(folds.map(\.windowAccuracy))
        self.folds = folds.count
        meanWindowAccuracy = spread.mean
        standardDeviation = spread.standardDeviation
        least = spread.values.min() ?? .nan
        most = spread.values.max() ?? .nan
        meanSessionAccuracy = Spread(folds.map(\.sessionAccuracy)).mean
        trainingSeconds = folds.map(\.trainingSeconds).reduce(0, +)
        self.runs = runs
    }

    public var text: String {
        String(
            format:
                "mean window accuracy %.4f over %d people (standard deviation %.4f, least %.4f, most %.4f); mean session accuracy %.4f; %d %@ a fold, %.0f s of training",
            meanWindowAccuracy, folds, standardDeviation, least, most, meanSessionAccuracy, runs,
            runs == 1 ? "run" : "runs", trainingSeconds)
    }
}
