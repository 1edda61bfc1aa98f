import GestureCore

/// The thresholds `gesture clean` applies.
public struct CleaningRules: Sendable {
    /// Seconds of gesture a session must hold to fill one training window.
    public var window = 1.0
    /// Degrees between a session's gravity and its gesture's usual gravity beyond which it was held wrongly.
    public var orientationDegrees = 40.0
    /// How much nearer another gesture's sessions must be than its own for a session to be called that gesture.
    public var wrongGestureMargin = 1.5
    /// Fraction by which the rate between gaps may stray from the nominal rate.
    public var driftTolerance = 0.02
    /// Seconds an axis may hold exactly one value before it counts as flat-lined.
    public var flatSeconds = 0.5
    /// Fraction of samples at the sensor's range that counts as clipping.
    public var clippingFraction = 0.01
    /// The sensors' ranges, by the device the catalog names; a session from a device not here is
    /// not checked for clipping.
    public var ranges: [String: SensorRange]

    public init(ranges: [String: SensorRange] = [:]) { self.ranges = ranges }
}
