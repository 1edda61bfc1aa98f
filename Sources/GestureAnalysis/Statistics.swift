/// The few summary figures analysis needs, over plain arrays.
enum Statistics {
    static func median(_ values: [Double]) -> Double {
        values.median ?? .nan
    }

    static func mean(_ values: some Collection<Double>) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    /// Population standard deviation.
    static func deviation(_ values: some Collection<Double>) -> Double {
        let m = mean(values)
        return (values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count)).squareRoot()
    }
}
