extension Collection where Element == Double {
    /// The middle value, or the mean of the two middle values; nil when there are none.
    public var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The value below which `fraction` of the values lie (nearest rank); nil when there are none.
    public func percentile(_ fraction: Double) -> Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        return sorted[
            Swift.max(0, Swift.min(sorted.count - 1, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))]
    }
}

extension Collection where Element == RecordingRow {
    /// The median time between consecutive rows of the same session, in seconds, leaving out
    /// intervals that are not positive; nil when there are none. Lazy, so that only the intervals
    /// are held, not pairs of rows.
    public var medianInterval: Double? {
        zip(dropFirst(), self).lazy
            .filter { $0.session == $1.session }
            .map { $0.timestamp - $1.timestamp }
            .filter { $0 > 0 }
            .median
    }
}
