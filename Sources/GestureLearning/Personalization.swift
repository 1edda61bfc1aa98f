import GestureCore

/// What makes a model one person's: the model it was made from, how, and from which of their
/// takes. The model file keeps it, so `evaluate` can tell that person's sessions from the others'.
public struct Personalization: Sendable, Equatable, Codable {
    public enum Method: String, Sendable, Codable, CaseIterable {
        /// k nearest neighbours on the network's embeddings of the person's windows.
        case knn
        /// The last layers trained again on the person's windows.
        case finetune
        /// Batch norm's statistics re-estimated on the person's windows, their labels ignored, and
        /// by default self-trained on the windows it is then confident of (`SelfTraining`).
        case unlabeled
    }

    public var method: Method
    public var user: UserID
    /// The base model's file, as it was named when personalising.
    public var baseModel: String
    public var baseClassNames: [String]
    /// The person's sessions it learned from, held-out ones included.
    public var sessions: [SessionID]
    /// How many of those sessions were recorded for each gesture (rest-only sessions are not
    /// counted); none for `unlabeled`, which does not read labels.
    public var takes: [String: Int]
    /// With the classes balanced over the person's windows (`unlabeled` only), each class's logit
    /// shift (`ClassBalance`); absent otherwise.
    public var classShifts: [Double]?

    public init(
        method: Method, user: UserID, baseModel: String, baseClassNames: [String], sessions: [LabeledSequence],
        classNames: [String]
    ) {
        self.method = method
        self.user = user
        self.baseModel = baseModel
        self.baseClassNames = baseClassNames
        self.sessions = Set(sessions.map(\.recordedSession)).sorted()
        takes = method == .unlabeled ? [:] : Self.takes(in: sessions, classNames: classNames)
    }

    /// How many of the recorded sessions (an augmented copy counting as its recording) are of each gesture.
    public static func takes(in sessions: [LabeledSequence], classNames: [String]) -> [String: Int] {
        let recorded = Dictionary(sessions.map { ($0.recordedSession, $0) }, uniquingKeysWith: { first, _ in first })
        var takes: [String: Int] = [:]
        for sequence in recorded.values {
            if let gesture = sequence.gesture(classNames: classNames) { takes[gesture, default: 0] += 1 }
        }
        return takes
    }

    /// The classes the base model did not have.
    public func newClasses(of classNames: [String]) -> [String] {
        classNames.filter { !baseClassNames.contains($0) }
    }
}

extension LabeledSequence {
    /// The most frequent of its labels other than rest (a tie to the lowest class); nil when all are rest.
    public func gesture(classNames: [String]) -> String? {
        let rest = classNames.firstIndex(of: ActivityLabel.rest.rawValue)
        let gestures = labels.filter { $0 != rest }
        return gestures.isEmpty ? nil : classNames[majorityClass(gestures, classCount: classNames.count)]
    }
}
