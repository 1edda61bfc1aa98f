import GestureCore

/// What `gesture stats` shows: how many sessions each user recorded of each gesture, how much data
/// each gesture has, the range of every feature, and each session's timing.
public struct DatasetStats: Sendable, Codable {
    public struct GestureTotals: Sendable, Codable, Equatable {
        public var gesture: String
        public var sessions: Int
        public var samples: Int
        public var seconds: Double
    }

    /// One user's sessions of one gesture: a cell of the count table, with its data and timing.
    public struct CellTotals: Sendable, Codable, Equatable {
        public var user: String
        public var gesture: String
        public var sessions: Int
        public var samples: Int
        public var seconds: Double
        /// The sessions' nominal rates, each once, lowest first.
        public var nominalRates: [Double]
        /// Samples per second over the cell: its sessions' intervals between first and last sample.
        public var achievedRate: Double
        /// The share of its rows that repeat the row before, over all its sessions.
        public var heldShare: Double
    }

    public struct FeatureSummary: Sendable, Codable, Equatable {
        public var feature: String
        public var unit: String
        /// Over the finite values.
        public var min: Double
        public var max: Double
        public var mean: Double
        public var std: Double
        public var nanCount: Int
        public var infiniteCount: Int
    }

    public struct SessionSummary: Sendable, Codable, Equatable {
        public var session: String
        public var user: String
        public var gesture: String
        public var samples: Int
        public var seconds: Double
        public var timing: SessionTiming
        /// Whether nothing moved inside the session's prompt.
        public var noMotion: Bool
    }

    public var users: [String]
    public var gestures: [String]
    /// Sessions per gesture (outer key) and user (inner key).
    public var sessionCounts: [String: [String: Int]]
    public var gestureTotals: [GestureTotals]
    /// A cell per user and gesture with sessions, by user then gesture.
    public var cellTotals: [CellTotals]
    public var features: [FeatureSummary]
    public var sessions: [SessionSummary]

    public init(_ dataset: Dataset) {
        users = dataset.users.map(\.rawValue)
        gestures = dataset.gestures.map(\.rawValue)
        var counts: [String: [String: Int]] = [:]
        for session in dataset.sessions {
            counts[session.gesture.rawValue, default: [:]][session.user.rawValue, default: 0] += 1
        }
        sessionCounts = counts
        gestureTotals = Dictionary(grouping: dataset.sessions, by: \.gesture).sorted { $0.key < $1.key }.map {
            gesture, sessions in
            GestureTotals(
                gesture: gesture.rawValue, sessions: sessions.count,
                samples: sessions.reduce(0) { $0 + $1.rows.count },
                seconds: sessions.reduce(0) { $0 + $1.duration })
        }
        features = Feature.all.map { Self.summary(of: $0, in: dataset) }
        sessions = dataset.sessions.map { session in
            SessionSummary(
                session: session.id.rawValue, user: session.user.rawValue, gesture: session.gesture.rawValue,
                samples: session.rows.count, seconds: session.duration, timing: SessionTiming(session),
                noMotion: session.lacksMotion)
        }
        cellTotals = Dictionary(grouping: sessions) { [$0.user, $0.gesture] }.sorted {
            $0.key.lexicographicallyPrecedes($1.key)
        }
        .map { Self.cell($0.value) }
    }

    private static func cell(_ sessions: [SessionSummary]) -> CellTotals {
        let intervals = sessions.reduce(0) { $0 + max(0, $1.samples - 1) }
        let held = sessions.reduce(0.0) { $0 + $1.timing.heldShare * Double(max(0, $1.samples - 1)) }
        let seconds = sessions.reduce(0) { $0 + $1.seconds }
        return CellTotals(
            user: sessions[0].user, gesture: sessions[0].gesture, sessions: sessions.count,
            samples: sessions.reduce(0) { $0 + $1.samples }, seconds: seconds,
            nominalRates: Set(sessions.map(\.timing.nominalRate)).sorted(),
            achievedRate: seconds > 0 ? Double(intervals) / seconds : 0,
            heldShare: intervals > 0 ? held / Double(intervals) : 0)
    }

    public func count(gesture: String, user: String) -> Int { sessionCounts[gesture]?[user] ?? 0 }

    private static func summary(of feature: Feature, in dataset: Dataset) -> FeatureSummary {
        var (low, high, sum, squares, finite, nan, infinite) = (Double.infinity, -Double.infinity, 0.0, 0.0, 0, 0, 0)
        for session in dataset.sessions {
            for row in session.rows {
                let value = feature.value(of: row)
                if value.isNaN {
                    nan += 1
                    continue
                }
                if value.isInfinite {
                    infinite += 1
                    continue
                }
                low = Swift.min(low, value)
                high = Swift.max(high, value)
                sum += value
                squares += value * value
                finite += 1
            }
        }
        let mean = finite > 0 ? sum / Double(finite) : .nan
        let variance = finite > 0 ? Swift.max(0, squares / Double(finite) - mean * mean) : .nan
        return FeatureSummary(
            feature: feature.name, unit: feature.unit, min: finite > 0 ? low : .nan, max: finite > 0 ? high : .nan,
            mean: mean, std: variance.squareRoot(), nanCount: nan, infiniteCount: infinite)
    }
}
