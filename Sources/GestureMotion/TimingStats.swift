/// How well a run of samples kept to its nominal rate.
public struct TimingStats: Sendable, Equatable {
    public var nominalRate: Double
    public var sampleCount: Int
    /// Samples per second between the first and the last sample.
    public var achievedRate: Double
    /// |dt − T| in seconds, at the 50th and 99th percentile and at most.
    public var p50: Double
    public var p99: Double
    public var max: Double
    /// Root mean square of dt − T, in seconds.
    public var jitter: Double

    /// The achieved rate's error, in parts per million of the nominal rate.
    public var rateErrorPPM: Double { (achievedRate - nominalRate) / nominalRate * 1e6 }

    public init(times: [Double], nominalRate: Double) {
        self.nominalRate = nominalRate
        sampleCount = times.count
        guard times.count > 1 else {
            achievedRate = 0
            p50 = 0
            p99 = 0
            max = 0
            jitter = 0
            return
        }
        let period = 1 / nominalRate
        let errors = zip(times.dropFirst(), times).map { $0 - $1 - period }
        let sorted = errors.map(abs).sorted()
        achievedRate = Double(times.count - 1) / (times.last! - times.first!)
        p50 = Self.percentile(sorted, 0.50)
        p99 = Self.percentile(sorted, 0.99)
        max = sorted.last!
        jitter = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
