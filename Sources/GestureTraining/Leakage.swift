import GestureCore
import GestureLearning

/// What makes a test's figures flatter a model: test sessions it trained on or was personalised
/// with, and people it trained on. `gesture evaluate` warns with these.
public struct Leakage: Sendable {
    public var warnings: [String] = []
    /// Said instead of the training warnings when the model does not record what it trained on
    /// (written before models did, or imported).
    public var unknown: String?

    public init(model: GestureModel, testing sequences: [LabeledSequence]) {
        if let personalization = model.personalization {
            let used = Set(personalization.sessions)
            let count = sequences.filter { used.contains($0.recordedSession) }.count
            if count > 0 {
                warnings.append(
                    "\(count) of the \(sequences.count.counting("test session")) personalised it for "
                        + "\(personalization.user.rawValue): these figures are not a test")
            }
        }
        guard let record = model.trainingRecord else {
            unknown = "the model does not record what it was trained on, so whether the test is new to it is unknown"
            return
        }
        let trained = record.trainedOn(sequences).count
        if trained > 0 {
            warnings.append(
                "\(trained) of the \(sequences.count.counting("test session")) \(trained == 1 ? "was" : "were") "
                    + "in its training set: these figures are not a test")
        }
        let shared = record.trainingUsers(among: sequences).map(\.rawValue)
        if !shared.isEmpty {
            warnings.append(
                "the test set shares users with training (\(shared.joined(separator: ", "))): these figures flatter the model"
            )
        }
    }
}
