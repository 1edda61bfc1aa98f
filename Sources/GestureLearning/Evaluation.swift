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

    /// One session: the gesture it was recorded for and whether the model found it.
    public struct SessionResult: Sendable, Equatable, Encodable {
        public var session: SessionID
        public var user: UserID
        /// The most frequent target among its windows other than rest (a tie to the lowest class);
        /// nil when every window is rest.
        public var gesture: String?
        /// The most frequent prediction other than rest among its gesture windows (the windows
        /// whose target is `gesture`); nil when it has none, or the model called all of them rest.
        public var predictedGesture: String?
        /// Whether `predictedGesture` is `gesture`; false for a session without a gesture.
        public var recognised: Bool
        /// Its windows whose target is `gesture`, and how many of them the model got right.
        public var gestureWindows: Int
        public var gestureWindowsRight: Int
        /// The share of all its windows, rest included, that the model got right.
        public var windowAccuracy: Double
        /// How many of all its windows the model predicted as each class.
        public var predictions: [String: Int]

        init(_ sequence: LabeledSequence, targets: [Int], predictions predicted: [Int], classNames: [String]) {
            let rest = classNames.firstIndex(of: ActivityLabel.rest.rawValue)
            func mostFrequentGesture(_ labels: [Int]) -> Int? {
                let gestures = labels.filter { $0 != rest }
                return gestures.isEmpty ? nil : majorityClass(gestures, classCount: classNames.count)
            }
            let target = mostFrequentGesture(targets)
            let windows = zip(targets, predicted).filter { $0.0 == target }
            let predictedTarget = mostFrequentGesture(windows.map(\.1))
            session = sequence.session
            user = sequence.user
            gesture = target.map { classNames[$0] }
            predictedGesture = predictedTarget.map { classNames[$0] }
            recognised = target != nil && target == predictedTarget
            gestureWindows = windows.count
            gestureWindowsRight = windows.filter { $0.0 == $0.1 }.count
            windowAccuracy = ratio(zip(targets, predicted).filter { $0 == $1 }.count, targets.count)
            predictions = Dictionary(uniqueKeysWithValues: classNames.map { ($0, 0) })
            for label in predicted { predictions[classNames[label], default: 0] += 1 }
        }
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
    /// The share of the sessions with a gesture (a window whose target is not rest) whose gesture
    /// the model found (`SessionResult.recognised`); sessions that are all rest are not counted.
    public var sessionAccuracy: Double
    /// The sessions session accuracy counts, and how many of them were recognised.
    public var sessionsWithGesture: Int
    public var sessionsRecognised: Int
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
            SessionResult(sequence, targets: windows.0, predictions: windows.1, classNames: classNames)
        }
        sessionsWithGesture = sessions.filter { $0.gesture != nil }.count
        sessionsRecognised = sessions.filter(\.recognised).count
        sessionAccuracy = ratio(sessionsRecognised, sessionsWithGesture)
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
