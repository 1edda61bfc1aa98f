import GestureAnalysis
import GestureCore
import GestureLearning
import GestureTraining

/// A recorded session's windows as a model classifies them, offline as `gesture evaluate` does:
/// each window's time, the label most of its rows carry, the class the model gives it and how sure.
struct SessionWindows: Encodable {
    struct Window: Encodable {
        /// Seconds of the session's first and last row in the window.
        var start: Double
        var end: Double
        var label: String
        var predicted: String
        var probability: Float
    }

    var classes: [String]
    var windows: [Window]
    /// The share of windows whose class is their label.
    var accuracy: Double

    init(_ session: RecordedSession, by model: GestureModel) throws(StudioError) {
        guard abs(session.nominalRate / model.samplingRate - 1) <= 0.02 else {
            throw StudioError(
                "session \(session.id) was recorded at \(session.nominalRate.shortText) Hz and the model reads "
                    + "\(model.samplingRate.shortText) Hz: `gesture downsample` it first")
        }
        let sequence: LabeledSequence
        do {
            let features = try model.featureNames.map { name throws(UnknownFeature) in try Feature(named: name) }
            sequence = try TrainingData(
                dataset: Dataset(sessions: [session]), features: features, classNames: model.classNames
            ).sequences[0]
        } catch {
            throw StudioError("session \(session.id): \(error)")
        }
        let classes = model.classNames, window = model.windowing.window
        let probabilities = model.predict([sequence])[0]
        let labels = model.windowing.windowLabels(sequence.labels, classCount: classes.count)
        windows = labels.enumerated().map { index, label in
            let scores = probabilities[index * classes.count..<(index + 1) * classes.count]
            let top = scores.indices.max { scores[$0] < scores[$1] }! - scores.startIndex
            let rows = session.rows[index * window..<min((index + 1) * window, session.rows.count)]
            return Window(
                start: rows.first!.timestamp, end: rows.last!.timestamp, label: classes[label],
                predicted: classes[top], probability: scores[scores.startIndex + top])
        }
        self.classes = classes
        accuracy = Double(windows.count { $0.label == $0.predicted }) / Double(max(windows.count, 1))
    }
}
