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

    public func charts(for dataset: Dataset) throws(AnalysisError) -> [LineChart] {
        guard let slice else {
            return dataset.sessions.prefix(maximumPanels).map { session in
                let times = session.rows.map { $0.timestamp - (session.rows.first?.timestamp ?? 0) }
                return chart(
                    title: "\(session.id)  \(session.user)  \(session.gesture)", xLabel: "time (s)",
                    x: times, rows: session.rows[...])
            }
        }
        let rows = dataset.sessions.flatMap(\.rows)
        guard slice.lowerBound >= 0, slice.upperBound <= rows.count, !slice.isEmpty else {
            throw AnalysisError(
                "samples \(slice.lowerBound)..<\(slice.upperBound) lie outside the selection's \(rows.count) samples")
        }
        return [
            chart(
                title: "samples \(slice.lowerBound)..<\(slice.upperBound) of \(rows.count)", xLabel: "sample",
                x: slice.map(Double.init), rows: rows[slice])
        ]
    }

    private func chart(title: String, xLabel: String, x: [Double], rows: ArraySlice<RecordingRow>) -> LineChart {
        let series = features.map { feature in
            LineChart.Series(name: feature.name, points: zip(x, rows).map { ($0, feature.value(of: $1)) })
        }
        let units = features.map(\.unit).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return LineChart(
            title: title, xLabel: xLabel, yLabel: units.joined(separator: ", "), series: series,
            bands: bands(x: x, rows: rows))
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
