import GestureCore

/// Features of recorded sessions over time, as charts: one panel per session, or one panel for
/// a slice of samples of the whole selection, as Machine Learning by Tutorials' `plot_gesture_activity(test[11950:12050], …)`.
public struct GesturePlot: Sendable {
    public var features: [Feature]
    /// Sample positions in the selection's rows, sessions one after the other.
    public var slice: Range<Int>?
    public var maximumPanels: Int

    public init(features: [Feature], slice: Range<Int>? = nil, maximumPanels: Int = 6) {
        self.features = features
        self.slice = slice
        self.maximumPanels = maximumPanels
    }

    /// The panels: for each session drawn (or the slice), one per unit of the features, so that
    /// rad/s never flattens g.
    public func charts(for dataset: Dataset) throws(AnalysisError) -> [LineChart] {
        guard let slice else {
            return dataset.sessions.prefix(maximumPanels).flatMap { session in
                charts(title: "\(session.id)  \(session.user)  \(session.gesture)", rows: session.rows[...])
            }
        }
        let rows = dataset.sessions.flatMap(\.rows)
        guard slice.lowerBound >= 0, slice.upperBound <= rows.count, !slice.isEmpty else {
            throw AnalysisError(
                "samples \(slice.lowerBound)..<\(slice.upperBound) lie outside the selection's \(rows.count) samples")
        }
        return charts(
            title: "samples \(slice.lowerBound) to \(slice.upperBound - 1) of \(rows.count)", rows: rows[slice])
    }

    private func charts(title: String, rows: ArraySlice<RecordingRow>) -> [LineChart] {
        let x = Self.seconds(of: rows)
        let units = features.map(\.unit).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return units.enumerated().map { index, unit in
            let series = features.filter { $0.unit == unit }.map { feature in
                LineChart.Series(name: feature.name, points: zip(x, rows).map { ($0, feature.value(of: $1)) })
            }
            return LineChart(
                title: index == 0 ? title : "", xLabel: "time (s)", yLabel: unit, series: series,
                bands: bands(x: x, rows: rows))
        }
    }

    /// Seconds from the first row, each session's rows at their own times and the next session one
    /// interval after the last row of the one before.
    static func seconds(of rows: ArraySlice<RecordingRow>) -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(rows.count)
        var previous: RecordingRow?
        var interval = 0.01
        for row in rows {
            if let previous, previous.session == row.session, row.timestamp > previous.timestamp {
                interval = row.timestamp - previous.timestamp
            }
            let step = previous.map { $0.session == row.session ? row.timestamp - $0.timestamp : interval } ?? 0
            times.append((times.last ?? 0) + step)
            previous = row
        }
        return times
    }

    /// A band over each run of samples labeled with a gesture, so label changes show.
    private func bands(x: [Double], rows: ArraySlice<RecordingRow>) -> [LineChart.Band] {
        var bands: [LineChart.Band] = []
        var start: Int?
        let labels = rows.map(\.activity)
        for k in labels.indices {
            let ends = k == labels.count - 1 || labels[k + 1] != labels[k]
            if start == nil { start = k }
            if ends {
                if !labels[k].isRest {
                    bands.append(LineChart.Band(from: x[start!], to: x[k], label: labels[k].rawValue))
                }
                start = nil
            }
        }
        return bands
    }
}
