import GestureAnalysis
import GestureCore
import GestureLearning

/// Recorded sessions as the model sees them: the chosen features of each sample and its class.
public struct TrainingData: Sendable {
    public let features: [Feature]
    public let classNames: [String]
    public let sequences: [LabeledSequence]
    /// The sampling rate all the sessions share, in Hz.
    public let rate: Double

    /// The features Machine Learning by Tutorials trained on, which the book's GestureIt app feeds.
    public static let bookFeatures = ["rotX", "rotY", "rotZ", "accelX", "accelY", "accelZ"]

    /// - Parameters:
    ///   - plan: the copies to add: each session is followed by its copies, each made as its turn
    ///     comes, so that the copies' recorded rows are never all held at once.
    ///   - classNames: the classes in model order; nil takes the dataset's labels, sorted.
    public init(
        dataset: Dataset, augmentedBy plan: AugmentationPlan = AugmentationPlan([]), features: [Feature],
        classNames: [String]? = nil
    ) throws(AnalysisError) {
        guard !dataset.sessions.isEmpty else { throw AnalysisError("no sessions to learn from") }
        let labels = Set(dataset.sessions.flatMap { $0.rows.map(\.activity.rawValue) })
        let classNames = classNames ?? labels.sorted()
        if let unknown = labels.subtracting(classNames).sorted().first {
            throw AnalysisError(
                "the label '\(unknown)' is not one of the model's classes: \(classNames.joined(separator: ", "))")
        }
        self.features = features
        self.classNames = classNames
        rate = try Self.commonRate(of: dataset)
        let classIndex = Dictionary(uniqueKeysWithValues: classNames.enumerated().map { ($1, $0) })
        var copier = SessionCopier(plan)
        var sequences: [LabeledSequence] = []
        sequences.reserveCapacity(dataset.sessions.count * (1 + plan.augmentations.count))
        for session in dataset.sessions {
            for copy in copier.withCopies(of: session) {
                sequences.append(try Self.sequence(of: copy, features: features, classIndex: classIndex))
            }
        }
        self.sequences = sequences
    }

    /// `session`'s features, sample after sample, and each sample's class.
    private static func sequence(
        of session: RecordedSession, features: [Feature], classIndex: [String: Int]
    ) throws(AnalysisError) -> LabeledSequence {
        var values: [Float] = []
        values.reserveCapacity(session.rows.count * features.count)
        for row in session.rows {
            for feature in features {
                let value = feature.value(of: row)
                guard value.isFinite else {
                    throw AnalysisError(
                        "session \(session.id) has \(value) in \(feature.name) at \(row.timestamp) s; `gesture clean` finds such sessions"
                    )
                }
                values.append(Float(value))
            }
        }
        return LabeledSequence(
            session: session.id, user: session.user, copyOf: session.copyOf, featureCount: features.count,
            features: values,
            labels: session.rows.map { classIndex[$0.activity.rawValue]! })
    }

    /// The sessions' nominal rate, which must be the same for all (within 2 %); when it is not, the
    /// error names each rate with its sessions and the rate all of them can be downsampled to.
    private static func commonRate(of dataset: Dataset) throws(AnalysisError) -> Double {
        let rates = dataset.sessions.map(\.nominalRate).sorted()
        guard let low = rates.first, let high = rates.last, low > 0 else {
            throw AnalysisError("the sessions' sampling rate is unknown")
        }
        guard high <= low * 1.02 else {
            throw AnalysisError(
                "the sessions were recorded at different rates: \(ratesWithSessions(dataset)); "
                    + "downsample them to one rate, or choose sessions of one rate (--user, --session, --manifest)",
                remedy: .downsample(to: low))
        }
        return rates.median!
    }

    /// "25 Hz (2 sessions: demo 2026-…-1, demo 2026-…-2) and 100 Hz (36 sessions: ann 2026-…-1, …)".
    private static func ratesWithSessions(_ dataset: Dataset) -> String {
        let byRate = Dictionary(grouping: dataset.sessions) { ($0.nominalRate * 10).rounded() / 10 }
        let groups = byRate.keys.sorted().map { rate in
            let ids = byRate[rate]!.map { "\($0.user) \($0.id)" }
            let named = ids.prefix(2).joined(separator: ", ") + (ids.count > 2 ? ", …" : "")
            return "\(rate.shortText) Hz (\(ids.count.counting("session")): \(named))"
        }
        return groups.dropLast().joined(separator: ", ") + " and " + groups.last!
    }

    /// Users who are in both sets: a test that shares users with training flatters the model.
    public static func sharedUsers(_ a: [LabeledSequence], _ b: [LabeledSequence]) -> [UserID] {
        Set(a.map(\.user)).intersection(b.map(\.user)).sorted()
    }
}
