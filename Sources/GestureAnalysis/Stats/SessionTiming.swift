import GestureCore

/// How a session's samples kept to its rate: gaps where samples are missing, and drift.
public struct SessionTiming: Sendable, Codable, Equatable {
    public struct Gap: Sendable, Codable, Equatable {
        /// Seconds into the session where the gap starts.
        public var at: Double
        public var seconds: Double
    }

    public var nominalRate: Double
    /// Samples per second between the first and last sample.
    public var achievedRate: Double
    /// Intervals longer than 1.5 nominal periods.
    public var gaps: [Gap]
    /// The achieved rate's departure from the nominal one, ignoring gaps, as a fraction.
    public var drift: Double
    /// The share of rows that repeat the row before on all six axes: a reading held over a silence
    /// of a device slower than the rate (a phone's page at 100 Hz delivers about 60 readings a second).
    public var heldShare: Double

    /// A share of held rows above which `stats` and the studio warn: a real sensor's noise makes an
    /// exact repeat rare.
    public static let heldWarning = 0.1

    public init(_ session: RecordedSession) {
        nominalRate = session.nominalRate
        let rows = session.rows
        achievedRate = rows.count > 1 && session.duration > 0 ? Double(rows.count - 1) / session.duration : 0
        let period = nominalRate > 0 ? 1 / nominalRate : .infinity
        var gaps: [Gap] = []
        var regular = (count: 0, seconds: 0.0)
        for (previous, row) in zip(rows, rows.dropFirst()) {
            let interval = row.timestamp - previous.timestamp
            if interval > 1.5 * period {
                gaps.append(Gap(at: previous.timestamp - rows[0].timestamp, seconds: interval))
            } else {
                regular.count += 1
                regular.seconds += interval
            }
        }
        self.gaps = gaps
        let held = zip(rows, rows.dropFirst()).count {
            $0.rawAcceleration == $1.rawAcceleration && $0.rawRotationRate == $1.rawRotationRate
        }
        heldShare = rows.count > 1 ? Double(held) / Double(rows.count - 1) : 0
        drift = regular.seconds > 0 && nominalRate > 0 ? Double(regular.count) / regular.seconds / nominalRate - 1 : 0
    }
}
