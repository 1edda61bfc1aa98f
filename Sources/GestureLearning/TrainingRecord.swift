import GestureCore

/// What a model was trained and validated on: the recorded sessions and their users, an augmented
/// copy counting as the session it was made from. The model file keeps it, so `evaluate` can tell
/// a test from a look at the training data.
public struct TrainingRecord: Sendable, Equatable, Codable {
    public var trainingSessions: [SessionID]
    public var trainingUsers: [UserID]
    public var validationSessions: [SessionID]
    public var validationUsers: [UserID]
    /// Each class's share of the training windows; absent from files written before models
    /// recorded it.
    public var classShares: [Double]?

    public init(
        training: [LabeledSequence], validation: [LabeledSequence], windowing: Windowing, classCount: Int
    ) {
        trainingSessions = Set(training.map(\.recordedSession)).sorted()
        trainingUsers = Set(training.map(\.user)).sorted()
        validationSessions = Set(validation.map(\.recordedSession)).sorted()
        validationUsers = Set(validation.map(\.user)).sorted()
        var counts = [Int](repeating: 0, count: classCount)
        for sequence in training {
            for label in windowing.windowLabels(sequence.labels, classCount: classCount) { counts[label] += 1 }
        }
        let windows = counts.reduce(0, +)
        classShares = windows > 0 ? counts.map { Double($0) / Double(windows) } : nil
    }

    /// Those of `sequences` whose recorded session the model trained on.
    public func trainedOn(_ sequences: [LabeledSequence]) -> [LabeledSequence] {
        let trained = Set(trainingSessions)
        return sequences.filter { trained.contains($0.recordedSession) }
    }

    /// The users of `sequences` the model trained on.
    public func trainingUsers(among sequences: [LabeledSequence]) -> [UserID] {
        Set(trainingUsers).intersection(sequences.map(\.user)).sorted()
    }
}
