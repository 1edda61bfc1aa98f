import Foundation

/// One panel: lines over an x axis, shaded bands and marked x values labeled above the plot area,
/// axes with units, a legend beside the plot area. Draws gesture features over time and training curves.
public struct LineChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        /// Runs of points, each drawn as one line, with a break before the next.
        public var runs: [[(x: Double, y: Double)]]
        /// Its colour; nil for the palette's in the series' order.
        public var color: String?

        public init(name: String, points: [(x: Double, y: Double)], color: String? = nil) {
            self.init(name: name, runs: [points], color: color)
        }

        public init(name: String, runs: [[(x: Double, y: Double)]], color: String? = nil) {
            self.name = name
            self.runs = runs
            self.color = color
        }
    }

    /// A shaded stretch of the x axis with a label, such as where a gesture is performed.
    public struct Band: Sendable {
        public var from: Double
        public var to: Double
        public var label: String
        public var color: String
        public init(from: Double, to: Double, label: String, color: String = Palette.gestures.last!) {
            self.from = from
            self.to = to
            self.label = label
            self.color = color
        }
    }

    /// A dashed vertical line at an x value, with a label, such as the epoch training kept.
    public struct Marker: Sendable {
        public var x: Double
        public var label: String
        public init(x: Double, label: String) {
            self.x = x
            self.label = label
        }
    }

    /// Written above the panel; empty for none, as for the lower panels of a group.
    public var title: String
    /// Written below the x axis; empty for none.
    public var xLabel: String
    public var yLabel: String
    public var series: [Series]
    public var bands: [Band]
    public var markers: [Marker]
    /// Whether the bands' labels are written; a group of panels writes them above its first.
    public var labelsBands: Bool
    /// The smallest step between x ticks: 1 for epochs, 0 for any.
    public var xTickStep: Double
    /// The x axis's extent; nil for the points'.
    public var xRange: ClosedRange<Double>?

    public init(
        title: String, xLabel: String, yLabel: String, series: [Series], bands: [Band] = [], markers: [Marker] = [],
        labelsBands: Bool = true, xTickStep: Double = 0, xRange: ClosedRange<Double>? = nil
    ) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
        self.series = series
        self.bands = bands
        self.markers = markers
        self.labelsBands = labelsBands
        self.xTickStep = xTickStep
        self.xRange = xRange
    }

    static let font = (title: 13.0, label: 11.0, tick: 10.0)
    static let labelRow = 16.0

    /// The room around a plot area of this height that its texts need.
    func insets(plotHeight: Double) -> Insets {
        let ticks = yTicks(pixels: 0...plotHeight).map { SVGDocument.textWidth(Self.label($0), size: Self.font.tick) }
        let names = series.map { SVGDocument.textWidth($0.name, size: Self.font.label) }
        return Insets(
            left: 10 + Self.font.label + 8 + (ticks.max() ?? 0) + 6,
            right: names.isEmpty ? 12 : 14 + 22 + 6 + names.max()! + 8,
            top: (title.isEmpty ? 8 : 32) + (markers.isEmpty && !(labelsBands && !bands.isEmpty) ? 0 : Self.labelRow),
            bottom: 4 + 14 + (xLabel.isEmpty ? 6 : 22))
    }

    /// Draws the panel around its plot area, which `insets` leaves room for on the page.
    func draw(into svg: inout SVGDocument, plot: Rect, pageWidth: Double) {
        let xs = LinearScale(domain: xDomain, pixels: plot.x...plot.right)
        let ys = LinearScale(domain: yDomain, pixels: plot.y...plot.bottom, flipped: true)
        if !title.isEmpty {
            let top = plot.y - insets(plotHeight: plot.height).top
            svg.text(
                SVGDocument.fitted(title, width: pageWidth - plot.x - 10, size: Self.font.title), x: plot.x,
                y: top + 22,
                size: Self.font.title)
        }
        drawBands(into: &svg, plot: plot, xs: xs)
        drawAxes(into: &svg, plot: plot, xs: xs, ys: ys)
        drawLines(into: &svg, plot: plot, xs: xs, ys: ys)
        for marker in markers where xs.domain.contains(marker.x) {
            svg.line(x1: xs(marker.x), y1: plot.y, x2: xs(marker.x), y2: plot.bottom, stroke: "#444", dashed: true)
        }
        for label in labelsAbove(plot: plot, xs: xs) {
            svg.text(label.text, x: label.x, y: plot.y - 5, size: Self.font.label, color: label.color)
        }
        drawLegend(into: &svg, plot: plot)
    }

    /// The bands and lines alone, the plot area filling the page, in a frame: a session's thumbnail.
    public func thumbnail(width: Double, height: Double) -> SVGDocument {
        var svg = SVGDocument(width: width, height: height)
        let plot = Rect(x: 0.5, y: 0.5, width: width - 1, height: height - 1)
        let xs = LinearScale(domain: xDomain, pixels: plot.x...plot.right)
        drawBands(into: &svg, plot: plot, xs: xs)
        drawLines(
            into: &svg, plot: plot, xs: xs,
            ys: LinearScale(domain: yDomain, pixels: plot.y...plot.bottom, flipped: true))
        svg.rect(x: plot.x, y: plot.y, width: plot.width, height: plot.height, fill: "none", stroke: "#666")
        return svg
    }

    private func drawBands(into svg: inout SVGDocument, plot: Rect, xs: LinearScale) {
        for band in bands {
            let left = max(plot.x, xs(band.from)), right = min(plot.right, xs(band.to))
            guard right > left else { continue }
            svg.rect(
                x: left, y: plot.y, width: right - left, height: plot.height, fill: band.color,
                opacity: Palette.bandOpacity)
        }
    }

    private func drawLines(into svg: inout SVGDocument, plot: Rect, xs: LinearScale, ys: LinearScale) {
        for (index, line) in series.enumerated() {
            let runs = line.runs.map { run in
                MinMaxReduction.reduce(run, columns: Int(plot.width), x: xs).filter { $0.x.isFinite && $0.y.isFinite }
                    .map { (xs($0.x), ys($0.y)) }
            }
            svg.path(runs, stroke: color(of: index))
        }
    }

    private func drawAxes(into svg: inout SVGDocument, plot: Rect, xs: LinearScale, ys: LinearScale) {
        for tick in xs.ticks(max(2, Int(plot.width / 90)), minimumStep: xTickStep) {
            svg.line(x1: xs(tick), y1: plot.y, x2: xs(tick), y2: plot.bottom, stroke: "#ebebeb")
            svg.line(x1: xs(tick), y1: plot.bottom, x2: xs(tick), y2: plot.bottom + 4, stroke: "#666")
            svg.text(Self.label(tick), x: xs(tick), y: plot.bottom + 15, size: Self.font.tick, anchor: .middle)
        }
        for tick in yTicks(pixels: plot.y...plot.bottom) {
            svg.line(x1: plot.x, y1: ys(tick), x2: plot.right, y2: ys(tick), stroke: "#ebebeb")
            svg.line(x1: plot.x - 4, y1: ys(tick), x2: plot.x, y2: ys(tick), stroke: "#666")
            svg.text(Self.label(tick), x: plot.x - 6, y: ys(tick) + 3.5, size: Self.font.tick, anchor: .end)
        }
        svg.rect(x: plot.x, y: plot.y, width: plot.width, height: plot.height, fill: "none", stroke: "#666")
        if !xLabel.isEmpty {
            svg.text(xLabel, x: plot.midX, y: plot.bottom + 33, size: Self.font.label, anchor: .middle)
        }
        // At the page's left edge, so the units of stacked panels line up.
        svg.text(
            yLabel, x: 10 + Self.font.label - 2, y: plot.midY, size: Self.font.label,
            anchor: .middle, rotated: true)
    }

    private func color(of series: Int) -> String { self.series[series].color ?? Palette.color(series) }

    private func drawLegend(into svg: inout SVGDocument, plot: Rect) {
        for (index, line) in series.enumerated() {
            let y = plot.y + 8 + Double(index) * 16
            svg.line(x1: plot.right + 14, y1: y, x2: plot.right + 36, y2: y, stroke: color(of: index), width: 2)
            svg.text(line.name, x: plot.right + 42, y: y + 4, size: Self.font.label)
        }
    }

    /// The markers' labels centred on them, then the bands' from their start, inside the plot
    /// area's width; one that would overlap a label already placed is left out.
    private func labelsAbove(plot: Rect, xs: LinearScale) -> [(text: String, x: Double, color: String)] {
        let size = Self.font.label
        let wanted =
            markers.map { ($0.label, xs($0.x) - SVGDocument.textWidth($0.label, size: size) / 2, "#222") }
            + (labelsBands ? bands.map { ($0.label, xs($0.from), "#555") } : [])
        var placed: [(text: String, x: Double, color: String)] = []
        for (text, x, color) in wanted {
            let width = SVGDocument.textWidth(text, size: size)
            let left = min(max(plot.x, x), plot.right - width)
            let overlaps = placed.contains {
                left < $0.x + SVGDocument.textWidth($0.text, size: size) + 6 && $0.x < left + width + 6
            }
            if left >= plot.x && !overlaps { placed.append((text, left, color)) }
        }
        return placed
    }

    private var points: [(x: Double, y: Double)] {
        series.flatMap { $0.runs.joined() }.filter { $0.x.isFinite && $0.y.isFinite }
    }

    private var xDomain: ClosedRange<Double> { xRange ?? range(points.map(\.x)) }

    /// A little room above and below, so no line runs along the frame.
    private var yDomain: ClosedRange<Double> {
        let range = range(points.map(\.y))
        let pad = (range.upperBound / 2 - range.lowerBound / 2) * 0.1
        let largest = Double.greatestFiniteMagnitude
        return max(range.lowerBound - pad, -largest)...min(range.upperBound + pad, largest)
    }

    private func yTicks(pixels: ClosedRange<Double>) -> [Double] {
        LinearScale(domain: yDomain, pixels: pixels).ticks(max(3, Int((pixels.upperBound - pixels.lowerBound) / 28)))
    }

    private func range(_ values: [Double]) -> ClosedRange<Double> {
        guard let low = values.min(), let high = values.max() else { return 0...1 }
        return low...high
    }

    static func label(_ value: Double) -> String {
        String(format: "%g", abs(value) < 1e-12 ? 0 : value)
    }
}

/// Charts stacked on one page, one below the other, their plot areas aligned, under a note when
/// there is one.
public struct ChartPage: Sendable {
    public var charts: [LineChart]
    public var width: Double
    /// The height of each chart's plot area, without its labels.
    public var plotHeight: Double
    /// A line above the charts, such as what was left out.
    public var note: String?

    public init(charts: [LineChart], width: Double = 900, plotHeight: Double = 180, note: String? = nil) {
        self.charts = charts
        self.width = width
        self.plotHeight = plotHeight
        self.note = note
    }

    public var svg: SVGDocument {
        let insets = charts.map { $0.insets(plotHeight: plotHeight) }
        let left = insets.map(\.left).max() ?? 0, right = insets.map(\.right).max() ?? 0
        let noteHeight = note == nil ? 0.0 : 26
        let heights = insets.map { $0.top + plotHeight + $0.bottom }
        var svg = SVGDocument(width: width, height: noteHeight + heights.reduce(0, +) + 6)
        if let note {
            svg.text(
                SVGDocument.fitted(note, width: width - 20, size: LineChart.font.label), x: 10, y: 18,
                size: LineChart.font.label, color: "#a33")
        }
        var top = noteHeight
        for (chart, (inset, height)) in zip(charts, zip(insets, heights)) {
            let plot = Rect(x: left, y: top + inset.top, width: max(1, width - left - right), height: plotHeight)
            chart.draw(into: &svg, plot: plot, pageWidth: width)
            top += height
        }
        return svg
    }
}
