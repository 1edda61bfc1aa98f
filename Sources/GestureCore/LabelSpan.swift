/// A stretch of a session that carries one label, in seconds since the session started, both ends
/// included.
public struct LabelSpan: Sendable, Equatable, Codable {
    public var from: Double
    public var to: Double
    public var label: ActivityLabel

    public init(from: Double, to: Double, label: ActivityLabel) {
        self.from = from
        self.to = to
        self.label = label
    }

    public func contains(_ time: Double) -> Bool { from <= time && time <= to }
}

extension [LabelSpan] {
    /// The spans that give rows their labels as they are: one per run of a label other than rest,
    /// from the run's first row to its last.
    public init(runsOf rows: some Collection<RecordingRow>) {
        self = []
        var previous: ActivityLabel?
        for row in rows {
            extend(with: row, after: previous)
            previous = row.activity
        }
    }

    /// These runs extended with the next row in time order, the row before it labeled `previous`.
    public mutating func extend(with row: RecordingRow, after previous: ActivityLabel?) {
        guard !row.activity.isRest else { return }
        if previous == row.activity {
            self[count - 1].to = row.timestamp
        } else {
            append(LabelSpan(from: row.timestamp, to: row.timestamp, label: row.activity))
        }
    }

    /// The label of a sample at `time`: that of the last span holding it, or rest.
    public func label(at time: Double) -> ActivityLabel {
        last { $0.contains(time) }?.label ?? .rest
    }

    /// These spans with `span` laid over them: the parts of them it covers cut away, and `span`
    /// added unless it is rest.
    public func overlaid(with span: LabelSpan) -> [LabelSpan] {
        var result: [LabelSpan] = []
        for old in self {
            if old.from < span.from {
                result.append(LabelSpan(from: old.from, to: Swift.min(old.to, span.from.nextDown), label: old.label))
            }
            if old.to > span.to {
                result.append(LabelSpan(from: Swift.max(old.from, span.to.nextUp), to: old.to, label: old.label))
            }
        }
        if !span.label.isRest { result.append(span) }
        return result.sorted { $0.from < $1.from }
    }
}
