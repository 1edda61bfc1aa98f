import GestureAnalysis
import GestureCore
import GestureLearning

/// One person's recorded sessions as a base model reads them, ready to personalise it: its
/// features, its classes followed by any gesture it never had.
public struct PersonalSessions: Sendable {
    public let personalizer: Personalizer
    public let user: UserID
    public let sequences: [LabeledSequence]
    private let features: [Feature]

    /// - Parameter dataset: the person's sessions, at the base model's rate.
    public init(base: GestureModel, baseName: String, dataset: Dataset) throws(AnalysisError) {
        let users = Set(dataset.sessions.map(\.user))
        guard let user = users.first, users.count == 1 else {
            throw AnalysisError(
                users.isEmpty
                    ? "no sessions to personalise with"
                    : "personalising takes one person's sessions, not those of \(users.map(\.rawValue).sorted().joined(separator: ", "))"
            )
        }
        let features = try base.featureNames.map { name throws(AnalysisError) in
            do throws(UnknownFeature) { return try Feature(named: name) } catch {
                throw AnalysisError("\(baseName): \(error.description)")
            }
        }
        let labels = Set(dataset.sessions.flatMap { $0.rows.map(\.activity.rawValue) })
        let classNames = base.classNames + labels.subtracting(base.classNames).sorted()
        self.user = user
        personalizer = Personalizer(base: base, baseName: baseName, classNames: classNames)
        self.features = features
        sequences = try TrainingData(dataset: dataset, features: features, classNames: classNames).sequences
    }

    /// The base model's training sessions among `dataset`'s, at its rate, with the copies `gesture
    /// train`'s recipe makes of them: what its random convolutions are fitted again on, beside the
    /// person's windows. Empty when `dataset` holds none of them.
    public func baseTraining(in dataset: Dataset, seed: UInt64) throws(AnalysisError) -> [LabeledSequence] {
        let base = personalizer.base
        let trained = Set(base.trainingRecord?.trainingSessions ?? [])
        let sessions = try Dataset(sessions: dataset.sessions.filter { trained.contains($0.id) })
            .downsampled(to: base.samplingRate)
        guard !sessions.sessions.isEmpty else { return [] }
        let recipe = TrainingRecipe(for: sessions, features: base.featureNames, window: base.windowing.window)
        return try TrainingData(
            dataset: sessions, augmentedBy: AugmentationPlan(recipe.augmentations, seed: seed), features: features,
            classNames: personalizer.classNames
        ).sequences
    }

    /// The gestures the base model did not have.
    public var newClasses: [String] { Array(personalizer.classNames.dropFirst(personalizer.base.classNames.count)) }

    /// The base model's classes none of the sessions has a window of.
    public var classesWithoutTakes: [String] {
        let windowing = personalizer.base.windowing, classes = personalizer.classNames.count
        let present = Set(sequences.flatMap { windowing.windowLabels($0.labels, classCount: classes) })
        return personalizer.classNames.indices.filter { !present.contains($0) }.map { personalizer.classNames[$0] }
    }

    /// The sessions to learn from and those to choose the epoch by: the last take of each gesture
    /// is held out when every gesture has at least `minimumTakes`, otherwise none.
    public func heldOut(minimumTakes: Int = 3) -> (training: [LabeledSequence], validation: [LabeledSequence]) {
        let classNames = personalizer.classNames
        let byGesture = Dictionary(grouping: sequences) { $0.gesture(classNames: classNames) ?? "" }
        guard byGesture.values.allSatisfy({ $0.count >= minimumTakes }) else { return (sequences, []) }
        let validation = Set(byGesture.values.compactMap { $0.max { $0.session < $1.session }?.session })
        return (
            sequences.filter { !validation.contains($0.session) }, sequences.filter { validation.contains($0.session) }
        )
    }
}
