import GestureCore
import GestureLearning

/// A model listening to a sensor: readings brought to the model's rate, turned into its features,
/// and streamed through overlapping prediction windows.
public struct LiveDetector {
    public let model: GestureModel
    public let rateMatch: RateMatch
    private var features: LiveFeatures
    private var detector: StreamingDetector<StreamingClassifier>
    private var readings = 0
    /// With adaptation, the windows it keeps and the re-estimates it made.
    public private(set) var adaptation: StreamAdaptation?

    /// With `adaptingEvery`, batch norm's statistics are re-estimated after every so many seconds
    /// of motion the rejection accepts, on the latest `keeping` seconds of it (`StreamAdaptation`).
    public init(
        model: GestureModel, sensorRate: Double, settings: DetectionSettings, adaptingEvery: Double? = nil,
        keeping: Double = 300
    ) throws(LiveError) {
        guard model.windowing.window % settings.offset == 0 else {
            throw LiveError(
                "the offset \(settings.offset) must divide the model's window of \(model.windowing.window) samples")
        }
        rateMatch = try RateMatch(sensorRate: sensorRate, modelRate: model.samplingRate)
        do {
            features = try LiveFeatures(names: model.featureNames)
        } catch {
            throw LiveError("the model reads \(error)")
        }
        self.model = model
        detector = StreamingDetector(
            classifier: StreamingClassifier(model: model), window: model.windowing.window,
            featureCount: model.featureNames.count, settings: settings)
        if let adaptingEvery {
            adaptation = try StreamAdaptation(base: model, every: adaptingEvery, keeping: keeping)
        }
    }

    /// Feeds one reading; returns the prediction it completed, and the detection, if the
    /// prediction is one.
    public mutating func add(_ sample: RawSample) -> (prediction: Prediction?, detection: Prediction?) {
        readings += 1
        let values = features.values(of: sample)
        guard readings % rateMatch.keepEvery == 0, let prediction = detector.add(values, at: sample.time) else {
            return (nil, nil)
        }
        if let latest = detector.latest, latest.slot == 0,
            let adapted = adaptation?.add(latest.window, isUnknown: latest.isUnknown)
        {
            detector.replaceClassifier(with: StreamingClassifier(model: adapted))
        }
        return (prediction, detector.detection(prediction))
    }

    /// Ends the cooldown of the last detection, keeping the windows and the model's states warm.
    public mutating func rearm() {
        detector.rearm()
    }
}

public struct LiveError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
