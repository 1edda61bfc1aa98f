import Foundation

/// One panel: lines over a shared x axis, shaded bands, axes with units, a legend.
/// Draws gesture features over time here, and training curves later.
public struct LineChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        public var points: [(x: Double, y: Double)]
        public init(name: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.points = points
        }
    }

    /// A shaded stretch of the x axis with a label, such as where a gesture is performed.
    public struct Band: Sendable {
        public var from: Double
        public var to: Double
        public var label: String
        public init(from: Double, to: Double, label: String) {
            self.from = from
            self.to = to
            self.label = label
        }
    }

    /// A vertical line at a place on the x axis, named in the legend, such as the epoch a model keeps.
    public struct Marker: Sendable {
        public var x: Double
        public var label: String
        public init(x: Double, label: String) {
            self.x = x
            self.label = label
        }
    }

    public var title: String
    public var xLabel: String
    public var yLabel: String
    public var series: [Series]
    public var bands: [Band]
    public var markers: [Marker]

    public init(
        title: String, xLabel: String, yLabel: String, series: [Series], bands: [Band] = [], markers: [Marker] = []
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.bands = bands
        self.markers = markers
    }

    static let margin = (left: 64.0, right: 120.0, top: 24.0, bottom: 40.0)

    /// Draws the panel into the rectangle at (x, y) of the given size.
    public func draw(into svg: inout SVGDocument, x: Double, y: Double, width: Double, height: Double) {
        let plot = (
            left: x + Self.margin.left, right: x + width - Self.margin.right,
            top: y + Self.margin.top, bottom: y + height - Self.margin.bottom
        )
        let all = series.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        let xs = LinearScale(domain: range(all.map(\.x)), pixels: plot.left...plot.right)
        let ys = LinearScale(domain: padded(range(all.map(\.y))), pixels: plot.top...plot.bottom, flipped: true)
        svg.text(title, x: plot.left, y: y + 16, size: 13)
        for (index, band) in bands.enumerated() {
            let left = max(plot.left, xs(band.from)), right = min(plot.right, xs(band.to))
            guard right > left else { continue }
            svg.rect(
                x: left, y: plot.top, width: right - left, height: plot.bottom - plot.top,
                fill: Palette.color(index + 3), opacity: 0.12)
            svg.text(band.label, x: left + 3, y: plot.top + 12, size: 10, color: "#555")
        }
        drawAxes(into: &svg, plot: plot, xs: xs, ys: ys)
        let columns = Int(plot.right - plot.left)
        for (index, line) in series.enumerated() {
            let points = MinMaxReduction.reduce(line.points, columns: columns, x: xs).filter {
                $0.x.isFinite && $0.y.isFinite
            }
            svg.polyline(points.map { (xs($0.x), ys($0.y)) }, stroke: Palette.color(index))
            drawLegendEntry(line.name, color: Palette.color(index), at: index, plot: plot, into: &svg)
        }
        for (index, marker) in markers.enumerated() where xs.domain.contains(marker.x) {
            svg.line(
                x1: xs(marker.x), y1: plot.top, x2: xs(marker.x), y2: plot.bottom, stroke: Self.markerColor, width: 1.5)
            drawLegendEntry(marker.label, color: Self.markerColor, at: series.count + index, plot: plot, into: &svg)
        }
    }

    static let markerColor = "#555"

    private func drawLegendEntry(
        _ name: String, color: String, at index: Int, plot: (left: Double, right: Double, top: Double, bottom: Double),
        into svg: inout SVGDocument
    ) {
        let y = plot.top + 6 + Double(index) * 16
        svg.line(x1: plot.right + 12, y1: y, x2: plot.right + 30, y2: y, stroke: color, width: 2.5)
        svg.text(name, x: plot.right + 34, y: y + 4)
    }

    private func drawAxes(
        into svg: inout SVGDocument, plot: (left: Double, right: Double, top: Double, bottom: Double),
        xs: LinearScale, ys: LinearScale
    ) {
        svg.rect(
            x: plot.left, y: plot.top, width: plot.right - plot.left, height: plot.bottom - plot.top, fill: "none",
            stroke: "#888")
        for tick in xs.ticks(8) {
            svg.line(x1: xs(tick), y1: plot.bottom, x2: xs(tick), y2: plot.bottom + 4, stroke: "#888")
            svg.text(Self.label(tick), x: xs(tick), y: plot.bottom + 15, size: 10, anchor: .middle)
        }
        for tick in ys.ticks(5) {
            svg.line(x1: plot.left, y1: ys(tick), x2: plot.right, y2: ys(tick), stroke: "#eee")
            svg.text(Self.label(tick), x: plot.left - 6, y: ys(tick) + 3, size: 10, anchor: .end)
        }
        svg.text(xLabel, x: (plot.left + plot.right) / 2, y: plot.bottom + 32, anchor: .middle)
        svg.text(yLabel, x: plot.left - 46, y: (plot.top + plot.bottom) / 2, anchor: .middle, rotated: true)
    }

    private func range(_ values: [Double]) -> ClosedRange<Double> {
        guard let low = values.min(), let high = values.max() else { return 0...1 }
        return low...high
    }

    /// A little room above and below, so no line runs along the frame.
    private func padded(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
        let pad = (range.upperBound - range.lowerBound) * 0.05
        return (range.lowerBound - pad)...(range.upperBound + pad)
    }

    static func label(_ value: Double) -> String {
        String(format: "%g", abs(value) < 1e-12 ? 0 : value)
    }
}

/// Charts stacked on one page, one below the other.
public struct ChartPage: Sendable {
    public var charts: [LineChart]
    public var width: Double
    public var panelHeight: Double

    public init(charts: [LineChart], width: Double = 900, panelHeight: Double = 260) {
        self.charts = charts
        self.width = width
        self.panelHeight = panelHeight
    }

    public var svg: SVGDocument {
        var svg = SVGDocument(width: width, height: panelHeight * Double(max(1, charts.count)))
        for (index, chart) in charts.enumerated() {
            chart.draw(into: &svg, x: 0, y: Double(index) * panelHeight, width: width, height: panelHeight)
        }
        return svg
    }
}
