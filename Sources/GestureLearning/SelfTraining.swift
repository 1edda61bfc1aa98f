/// Self-training on a person's unlabeled windows: the windows the model (its batch norm adapted to
/// them) classifies with at least `confidence`, and its rejection does not find unknown, become
/// labeled with their top class, and the layers after the LSTM are trained briefly on them.
/// The LSTM's output, which the rejection measures, stays as it was.
public struct SelfTraining: Sendable, Equatable {
    /// The probability a window's top class needs for the window to be labeled with it.
    public var confidence: Float
    public var options: TrainingOptions

    /// Chosen by `gesture-bench accuracy --adapt-unlabeled` on seglearn-watch (docs/personalization.md).
    public static let defaultConfidence: Float = 0.9
    public static let defaultOptions = TrainingOptions(epochs: 5, learningRate: 3e-4)

    public init(confidence: Float = Self.defaultConfidence, options: TrainingOptions = Self.defaultOptions) {
        precondition((0...1).contains(confidence), "a confidence is a probability")
        self.confidence = confidence
        self.options = options
    }
}

extension GestureModel {
    /// The full windows of `sequences` whose top class this model gives at least `confidence` and
    /// its rejection accepts, each sequence streamed as `detect` streams it; each run of
    /// consecutive ones of one class as a sequence labeled that class.
    public func confidentWindows(in sequences: [LabeledSequence], confidence: Float) -> [LabeledSequence] {
        let classifier = StreamingClassifier(model: self)
        return sequences.flatMap { confidentRuns(of: $0, classifier, confidence: confidence) }
    }

    private func confidentRuns(
        of sequence: LabeledSequence, _ classifier: StreamingClassifier, confidence: Float
    ) -> [LabeledSequence] {
        let size = windowing.window * sequence.featureCount
        var state = classifier.initialState
        let labels = (0..<sequence.sampleCount / windowing.window).map { window -> Int? in
            let probabilities = classifier.step(
                Array(sequence.features[window * size..<(window + 1) * size]), state: &state)
            let top = argmax(probabilities)
            let accepted = probabilities[top] >= confidence && !classifier.rejects(probabilities, state: state)
            return accepted ? top : nil
        }
        var runs: [LabeledSequence] = [], start = 0
        for end in labels.indices.dropFirst() + [labels.count] where end == labels.count || labels[end] != labels[start]
        {
            if let label = labels[start] {
                runs.append(
                    LabeledSequence(
                        session: sequence.session, user: sequence.user, copyOf: sequence.copyOf,
                        featureCount: sequence.featureCount,
                        features: Array(sequence.features[start * size..<end * size]),
                        labels: Array(repeating: label, count: (end - start) * windowing.window)))
            }
            start = end
        }
        return runs
    }
}
