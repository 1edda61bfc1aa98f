import GestureCore

/// Classifies one window at a time, carrying its recurrent state from window to window.
public protocol WindowClassifier {
    associatedtype State
    var classNames: [String] { get }
    var initialState: State { get }
    /// Class probabilities of a window of `window × features` values, row-major.
    func step(_ window: [Float], state: inout State) -> [Float]
    /// Whether the window just stepped is motion the classifier was not taught: `probabilities`
    /// are what `step` returned, `state` the state it left.
    func rejects(_ probabilities: [Float], state: State) -> Bool
}

extension WindowClassifier {
    public func rejects(_ probabilities: [Float], state: State) -> Bool { false }
}

/// When a prediction counts as a detection.
public struct DetectionSettings: Sendable, Equatable {
    /// Samples between predictions; the window must be a multiple of it.
    public var offset: Int
    /// The probability a gesture needs to be reported.
    public var threshold: Double
    /// Seconds after a detection during which no other is reported; by default as long as a take
    /// of `gesture record`, so that one gesture is reported once.
    public var cooldown: Double
    /// How many of the latest predictions are averaged; 1 averages none.
    public var averaging: Int
    /// The class that is never reported.
    public var rest: String
    /// Whether windows the model's rejection finds unknown are never reported (`--reject on`).
    public var reject: Bool

    public init(
        offset: Int = 5, threshold: Double = 0.9, cooldown: Double = 4, averaging: Int = 1, rest: String = "rest",
        reject: Bool = true
    ) {
        self.offset = offset
        self.threshold = threshold
        self.cooldown = cooldown
        self.averaging = averaging
        self.rest = rest
        self.reject = reject
    }
}

/// One prediction: the most probable class and the one after it.
public struct Prediction: Sendable, Equatable {
    public var time: Double
    public var gesture: String
    public var probability: Double
    public var runnerUp: String
    public var runnerUpProbability: Double
    /// Every class's probability, in the classifier's order.
    public var probabilities: [Float]
    /// Whether the model's rejection found the latest window unknown motion: never a detection.
    public var isUnknown: Bool

    public init(
        time: Double, gesture: String, probability: Double, runnerUp: String, runnerUpProbability: Double,
        probabilities: [Float], isUnknown: Bool = false
    ) {
        self.time = time
        self.gesture = gesture
        self.probability = probability
        self.runnerUp = runnerUp
        self.runnerUpProbability = runnerUpProbability
        self.probabilities = probabilities
        self.isUnknown = isUnknown
    }
}

/// Turns a stream of feature samples into gesture detections: overlapping prediction windows
/// (a window of W samples every K samples), each window slot carrying its own recurrent state
/// from its previous window, `rest`, background motion and rejected windows ignored, a threshold,
/// a cooldown and optional averaging.
/// Pure logic: time comes with the samples.
public struct StreamingDetector<Classifier: WindowClassifier> {
    public private(set) var classifier: Classifier
    public let settings: DetectionSettings
    /// The window the latest prediction classified (`window × features` raw values), its slot, and
    /// whether the classifier's rejection found it unknown (with `settings.reject` off too).
    public private(set) var latest: (window: [Float], slot: Int, isUnknown: Bool)?
    private var windows: SlidingWindows
    private var states: [Classifier.State]
    private var recent: [[Float]] = []
    private var quietUntil = -Double.infinity

    public init(classifier: Classifier, window: Int, featureCount: Int, settings: DetectionSettings) {
        self.classifier = classifier
        self.settings = settings
        windows = SlidingWindows(window: window, offset: settings.offset, featureCount: featureCount)
        states = Array(repeating: classifier.initialState, count: windows.slotCount)
    }

    /// Adds a sample taken at `time`; returns the prediction its window made, if it completed one.
    public mutating func add<C: Collection<Float>>(_ sample: C, at time: Double) -> Prediction? {
        guard let slot = windows.append(sample) else { return nil }
        let window = Array(windows.latest)
        let probabilities = classifier.step(window, state: &states[slot])
        recent.append(probabilities)
        if recent.count > settings.averaging { recent.removeFirst() }
        var prediction = prediction(averaged(), at: time)
        let isUnknown = classifier.rejects(probabilities, state: states[slot])
        prediction.isUnknown = settings.reject && isUnknown
        latest = (window, slot, isUnknown)
        return prediction
    }

    /// Classifies the next windows with `classifier`, carrying on the window slots' states: the
    /// same network's, its batch norm's statistics re-estimated, say.
    public mutating func replaceClassifier(with classifier: Classifier) {
        self.classifier = classifier
    }

    /// The detection a prediction makes, if any; starts the cooldown.
    public mutating func detection(_ prediction: Prediction) -> Prediction? {
        guard prediction.gesture != settings.rest, prediction.gesture != ActivityLabel.other.rawValue,
            !prediction.isUnknown, prediction.probability >= settings.threshold, prediction.time >= quietUntil
        else { return nil }
        quietUntil = prediction.time + settings.cooldown
        return prediction
    }

    /// Ends the cooldown, keeping the windows and the model's states: the next prediction above the
    /// threshold is a detection, as soon as it comes.
    public mutating func rearm() {
        quietUntil = -.infinity
    }

    private func averaged() -> [Float] {
        var sum = [Float](repeating: 0, count: recent[0].count)
        for probabilities in recent {
            for index in sum.indices { sum[index] += probabilities[index] }
        }
        return sum.map { $0 / Float(recent.count) }
    }

    private func prediction(_ probabilities: [Float], at time: Double) -> Prediction {
        let ranked = probabilities.indices.sorted { probabilities[$0] > probabilities[$1] }
        let second = ranked.count > 1 ? ranked[1] : ranked[0]
        return Prediction(
            time: time, gesture: classifier.classNames[ranked[0]], probability: Double(probabilities[ranked[0]]),
            runnerUp: classifier.classNames[second], runnerUpProbability: Double(probabilities[second]),
            probabilities: probabilities)
    }
}
