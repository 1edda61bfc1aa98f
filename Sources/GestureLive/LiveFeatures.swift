import GestureCore
import GestureMotion

/// A model's features computed from live readings: the attitude filter's device motion and the
/// raw readings, in the model's column order.
public struct LiveFeatures: Sendable {
    public let features: [Feature]
    private var filter = AttitudeFilter()

    public init(names: [String]) throws(UnknownFeature) {
        features = try names.map { name throws(UnknownFeature) in try Feature(named: name) }
    }

    public mutating func values(of sample: RawSample) -> [Float] {
        let motion = filter.update(sample)
        return features.map {
            Float($0.value(motion: motion, acceleration: sample.acceleration, rotationRate: sample.rotationRate))
        }
    }
}

/// Readings at a sensor's rate brought to a model's: every n-th reading, where the rates are n to 1.
public struct RateMatch: Sendable, Equatable {
    public let keepEvery: Int

    /// Matches `sensorRate` to `modelRate`, or says why it cannot (within 2 %).
    public init(sensorRate: Double, modelRate: Double) throws(LiveError) {
        let ratio = sensorRate / modelRate
        let whole = ratio.rounded()
        guard whole >= 1, abs(ratio - whole) <= 0.02 * whole else {
            throw LiveError(
                """
                the sensor runs at \(sensorRate.shortText) Hz and the model was trained at \(modelRate.shortText) Hz; \
                record at a whole multiple of \(modelRate.shortText) Hz, or train at the sensor's rate
                """)
        }
        keepEvery = Int(whole)
    }

    public var resamples: Bool { keepEvery > 1 }
}
