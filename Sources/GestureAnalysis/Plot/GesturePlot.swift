import Foundation
import GestureCore

/// Features of recorded sessions over time in seconds, as charts: a group of panels per session,
/// or one for a slice of samples of the whole selection, as Machine Learning by Tutorials'
/// `plot_gesture_activity(test[11950:12050], …)`. A group has one panel per unit (g, rad/s, rad),
/// so that no feature flattens another, and breaks its lines where samples are missing.
public struct GesturePlot: Sendable {
    public var features: [Feature]
    /// Sample positions in the selection's rows, sessions one after the other.
    public var slice: Range<Int>?
    public var maximumSessions: Int
    /// Each gesture's band colour (`Palette.gestureColors(in:)`); empty for the dataset's gestures'.
    public var gestureColors: [String: String]

    public init(
        features: [Feature], slice: Range<Int>? = nil, maximumSessions: Int = 6, gestureColors: [String: String] = [:]
    ) {
        self.features = features
        self.slice = slice
        self.maximumSessions = maximumSessions
        self.gestureColors = gestureColors
    }

    /// The panels, and how many sessions they draw and leave out.
    public struct Panels: Sendable {
        public var charts: [LineChart]
        public var sessionsDrawn: Int
        /// Sessions beyond `maximumSessions`, not drawn; none for a slice, which draws what it asks for.
        public var sessionsLeftOut: Int
    }

    public func panels(for dataset: Dataset) throws(AnalysisError) -> Panels {
        let colors =
            gestureColors.isEmpty
            ? Palette.gestureColors(dataset.gestures.filter { !$0.isRest }.map(\.rawValue)) : gestureColors
        guard let slice else {
            let drawn = dataset.sessions.prefix(maximumSessions)
            let charts = drawn.flatMap { session in
                group(
                    title: "\(session.id) · \(session.user) · \(session.gesture) · \(seconds(session.duration))",
                    rows: session.rows, timeline: Timeline(session.rows), slice: session.rows.indices,
                    colors: colors)
            }
            return Panels(
                charts: charts, sessionsDrawn: drawn.count, sessionsLeftOut: dataset.sessions.count - drawn.count)
        }
        let rows = dataset.sessions.flatMap(\.rows)
        guard slice.lowerBound >= 0, slice.upperBound <= rows.count, !slice.isEmpty else {
            throw AnalysisError(
                "samples \(slice.lowerBound)..<\(slice.upperBound) lie outside the selection's \(rows.count) samples",
                setting: .slice)
        }
        let timeline = Timeline(rows)
        let title =
            "\(seconds(timeline.seconds[slice.lowerBound])) to \(seconds(timeline.seconds[slice.upperBound - 1])) "
            + "of the selection's \(seconds(timeline.seconds.last ?? 0)) "
            + "(samples \(slice.lowerBound) to \(slice.upperBound - 1) of \(rows.count))"
        return Panels(
            charts: group(title: title, rows: rows, timeline: timeline, slice: slice, colors: colors),
            sessionsDrawn: Set(rows[slice].map(\.session)).count, sessionsLeftOut: 0)
    }

    /// A panel per unit of the rows in `slice`, the title and band labels above the first and the
    /// x axis's title below the last.
    private func group(
        title: String, rows: [RecordingRow], timeline: Timeline, slice: Range<Int>, colors: [String: String]
    ) -> [LineChart] {
        let units = features.map(\.unit).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let bands = bands(timeline: timeline, rows: rows, slice: slice, colors: colors)
        return units.enumerated().map { index, unit in
            let series = features.filter { $0.unit == unit }.map { feature in
                LineChart.Series(
                    name: feature.name,
                    runs: timeline.runs(in: slice).map { run in
                        run.map { (timeline.seconds[$0], feature.value(of: rows[$0])) }
                    }, color: Palette.axisColor(of: feature.name))
            }
            return LineChart(
                title: index == 0 ? title : "", xLabel: index == units.count - 1 ? "time (s)" : "", yLabel: unit,
                series: series, bands: bands, labelsBands: index == 0)
        }
    }

    /// A band over each run of samples labeled with a gesture, so label changes show, in the
    /// gesture's colour among the dataset's gestures.
    private func bands(
        timeline: Timeline, rows: [RecordingRow], slice: Range<Int>, colors: [String: String]
    ) -> [LineChart.Band] {
        var bands: [LineChart.Band] = []
        var start = slice.lowerBound
        for k in slice where k == slice.upperBound - 1 || rows[k + 1].activity != rows[k].activity {
            if !rows[k].activity.isRest {
                bands.append(
                    LineChart.Band(
                        from: timeline.seconds[start], to: timeline.seconds[k], label: rows[k].activity.rawValue,
                        color: colors[rows[k].activity.rawValue] ?? Palette.gestures.last!))
            }
            start = k + 1
        }
        return bands
    }

    private func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}
