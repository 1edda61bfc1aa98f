import GestureCore

/// How a model does on labeled sessions it did not train on, per window, per session and per user.
public struct Evaluation: Sendable, Equatable, Encodable {
    public struct ClassFigures: Sendable, Equatable, Encodable {
        public var name: String
        public var precision: Double
        public var recall: Double
        public var f1: Double
        /// Windows whose target is this class.
        public var support: Int
    }

    public struct SessionResult: Sendable, Equatable, Encodable {
        public var session: SessionID
        public var user: UserID
        /// The most frequent target and predicted class of its windows (a tie to the lowest class).
        public var target: Int
        public var predicted: Int
        public var windowAccuracy: Double
    }

    public struct UserResult: Sendable, Equatable, Encodable {
        public var user: UserID
        public var windows: Int
        public var accuracy: Double
    }

    public var classNames: [String]
    /// Window counts, `confusion[target][predicted]`.
    public var confusion: [[Int]]
    public var accuracy: Double
    public var classes: [ClassFigures]
    /// The unweighted mean of the classes' F1.
    public var macroF1: Double
    public var sessions: [SessionResult]
    /// The share of sessions whose majority prediction is their majority target.
    public var sessionAccuracy: Double
    public var users: [UserResult]

    /// Predicts every window of `sequences` with `model` and scores the predictions.
    public init(model: GestureModel, sequences: [LabeledSequence]) {
        self.init(ensemble: Ensemble([model]), sequences: sequences)
    }

    /// Scores given window predictions; `targets[s]` and `predictions[s]` are session s's windows.
    init(classNames: [String], sequences: [LabeledSequence], targets: [[Int]], predictions: [[Int]]) {
        let classCount = classNames.count
        self.classNames = classNames
        var confusion = Array(repeating: Array(repeating: 0, count: classCount), count: classCount)
        for (sessionTargets, sessionPredictions) in zip(targets, predictions) {
            for (target, predicted) in zip(sessionTargets, sessionPredictions) { confusion[target][predicted] += 1 }
        }
        self.confusion = confusion
        let total = confusion.joined().reduce(0, +)
        let correct = (0..<classCount).map { confusion[$0][$0] }.reduce(0, +)
        accuracy = ratio(correct, total)
        classes = (0..<classCount).map { index in
            let support = confusion[index].reduce(0, +)
            let predictedAs = confusion.map { $0[index] }.reduce(0, +)
            let precision = ratio(confusion[index][index], predictedAs),
                recall = ratio(confusion[index][index], support)
            let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
            return ClassFigures(name: classNames[index], precision: precision, recall: recall, f1: f1, support: support)
        }
        macroF1 = classes.map(\.f1).reduce(0, +) / Double(max(classCount, 1))
        sessions = zip(sequences, zip(targets, predictions)).map { sequence, windows in
            let hits = zip(windows.0, windows.1).filter { $0 == $1 }.count
            return SessionResult(
                session: sequence.session, user: sequence.user,
                target: majorityClass(windows.0, classCount: classCount),
                predicted: majorityClass(windows.1, classCount: classCount),
                windowAccuracy: ratio(hits, windows.0.count))
        }
        sessionAccuracy = ratio(sessions.filter { $0.target == $0.predicted }.count, sessions.count)
        var perUser: [UserID: (windows: Int, correct: Int)] = [:]
        for (sequence, windows) in zip(sequences, zip(targets, predictions)) {
            let hits = zip(windows.0, windows.1).filter { $0 == $1 }.count
            perUser[sequence.user, default: (0, 0)].windows += windows.0.count
            perUser[sequence.user, default: (0, 0)].correct += hits
        }
        users = perUser.keys.sorted().map { user in
            UserResult(
                user: user, windows: perUser[user]!.windows,
                accuracy: ratio(perUser[user]!.correct, perUser[user]!.windows))
        }
    }
}

/// The most frequent class, a tie going to the lowest; 0 for no labels.
func majorityClass(_ labels: some Sequence<Int>, classCount: Int) -> Int {
    var counts = [Int](repeating: 0, count: classCount)
    for label in labels { counts[label] += 1 }
    var best = 0
    for label in counts.indices where counts[label] > counts[best] { best = label }
    return best
}

private func ratio(_ part: Int, _ whole: Int) -> Double {
    whole > 0 ? Double(part) / Double(whole) : 0
}
