import Foundation

/// A table of counts as shaded cells, sized to its labels: each cell its count and its share of the
/// row, shaded by that share on a blue scale drawn beside it. A confusion matrix (rows: target,
/// columns: predicted), or the sessions per gesture and user.
public struct Heatmap: Sendable {
    public var title: String
    /// What the rows and columns are, written along them: "target" and "predicted".
    public var rowTitle: String
    public var columnTitle: String
    public var rowLabels: [String]
    public var columnLabels: [String]
    public var counts: [[Int]]
    /// What the colour shows, written along the scale: "share of the target's windows".
    public var scaleTitle: String

    public init(
        title: String, rowTitle: String, columnTitle: String, rowLabels: [String], columnLabels: [String],
        counts: [[Int]], scaleTitle: String
    ) {
        self.title = title
        self.rowTitle = rowTitle
        self.columnTitle = columnTitle
        self.rowLabels = rowLabels
        self.columnLabels = columnLabels
        self.counts = counts
        self.scaleTitle = scaleTitle
    }

    /// Each count divided by its row's total; 0 in a row of zeros.
    public var shares: [[Double]] {
        counts.map { row in
            let total = row.reduce(0, +)
            return row.map { total > 0 ? Double($0) / Double(total) : 0 }
        }
    }

    static let font = (title: 14.0, label: 11.0, axisTitle: 12.0, count: 13.0, share: 10.0)
    static let padding = 12.0

    public func svg() -> SVGDocument {
        let layout = HeatmapLayout(self)
        var svg = SVGDocument(width: layout.width, height: layout.height)
        let titleWidth = SVGDocument.textWidth(title, size: Self.font.title)
        let titleX = min(max(Self.padding, layout.grid.midX - titleWidth / 2), layout.width - Self.padding - titleWidth)
        svg.text(title, x: titleX, y: Self.padding + Self.font.title, size: Self.font.title)
        drawCells(into: &svg, grid: layout.grid, cell: layout.cell)
        drawLabels(into: &svg, layout: layout)
        drawScale(into: &svg, at: layout.scale)
        return svg
    }

    private func drawCells(into svg: inout SVGDocument, grid: Rect, cell: Double) {
        for (r, row) in counts.enumerated() {
            for (c, count) in row.enumerated() {
                let x = grid.x + cell * Double(c), y = grid.y + cell * Double(r)
                let share = shares[r][c], color = ColorScale.blues(share)
                svg.rect(x: x, y: y, width: cell, height: cell, fill: color.hex, stroke: "#fff")
                let lines = count == 0 ? ["0"] : [String(count), Self.significant(share)]
                let middle = y + cell / 2
                svg.text(
                    lines[0], x: x + cell / 2, y: middle + (lines.count == 1 ? 4.5 : -1), size: Self.font.count,
                    anchor: .middle, color: color.textColor)
                if lines.count > 1 {
                    svg.text(
                        lines[1], x: x + cell / 2, y: middle + 13, size: Self.font.share, anchor: .middle,
                        color: color.textColor)
                }
            }
        }
    }

    private func drawLabels(into svg: inout SVGDocument, layout: HeatmapLayout) {
        let grid = layout.grid, cell = layout.cell
        for (r, label) in rowLabels.enumerated() {
            svg.text(
                label, x: grid.x - 6, y: grid.y + cell * (Double(r) + 0.5) + 4, size: Self.font.label, anchor: .end)
        }
        for (c, label) in columnLabels.enumerated() {
            let x = grid.x + cell * (Double(c) + 0.5)
            if layout.columnLabelsUpright {
                svg.text(label, x: x + 4, y: grid.bottom + 6, size: Self.font.label, anchor: .end, rotated: true)
            } else {
                svg.text(label, x: x, y: grid.bottom + 16, size: Self.font.label, anchor: .middle)
            }
        }
        svg.text(
            rowTitle, x: Self.padding + Self.font.axisTitle, y: grid.midY, size: Self.font.axisTitle, anchor: .middle,
            rotated: true)
        svg.text(
            columnTitle, x: grid.midX, y: layout.height - Self.padding, size: Self.font.axisTitle, anchor: .middle)
    }

    private func drawScale(into svg: inout SVGDocument, at bar: Rect) {
        svg.verticalGradient(id: "scale", colors: ColorScale.blues.stops.map(\.hex))
        svg.rect(x: bar.x, y: bar.y, width: bar.width, height: bar.height, fill: "url(#scale)", stroke: "#888")
        let scale = LinearScale(domain: 0...1, pixels: bar.y...bar.bottom, flipped: true)
        for tick in scale.ticks(max(2, Int(bar.height / 30))) {
            svg.line(x1: bar.right, y1: scale(tick), x2: bar.right + 4, y2: scale(tick), stroke: "#888")
            svg.text(LineChart.label(tick), x: bar.right + 6, y: scale(tick) + 3.5, size: Self.font.label)
        }
        svg.text(
            scaleTitle, x: bar.right + 6 + HeatmapLayout.scaleLabelWidth + Self.font.axisTitle, y: bar.midY,
            size: Self.font.axisTitle, anchor: .middle, rotated: true)
    }

    /// A share to two significant digits: 0.95, 0.047, 0.0056, 1.0; 0 as 0.
    static func significant(_ share: Double) -> String {
        guard share > 0, share.isFinite else { return "0" }
        let unit = pow(10, floor(log10(share)) - 1)
        let rounded = (share / unit).rounded() * unit
        let decimals = max(0, 1 - Int(floor(log10(rounded))))
        return String(format: "%.\(decimals)f", rounded)
    }
}

/// Where the parts of a heatmap go: the grid after the row labels, the scale after the grid, the
/// column labels below it, upright when they are wider than a cell; the grid as tall as the scale's
/// title, the page as wide as its own.
struct HeatmapLayout {
    let cell: Double
    let grid: Rect
    let scale: Rect
    let columnLabelsUpright: Bool
    let width: Double
    let height: Double

    static let scaleLabelWidth = SVGDocument.textWidth("0.0", size: Heatmap.font.label)

    init(_ heatmap: Heatmap) {
        let font = Heatmap.font, padding = Heatmap.padding
        let widest = { (texts: [String], size: Double) in
            texts.map { SVGDocument.textWidth($0, size: size) }.max() ?? 0
        }
        let cellTexts = heatmap.counts.flatMap { $0.map(String.init) }
        let scaleTitleWidth = SVGDocument.textWidth(heatmap.scaleTitle, size: font.axisTitle)
        cell = max(
            56, widest(cellTexts, font.count) + 12,
            widest(heatmap.shares.flatMap { $0.map(Heatmap.significant) }, font.share) + 12,
            (scaleTitleWidth + 8) / Double(max(1, heatmap.rowLabels.count)))
        let rowLabelsWidth = widest(heatmap.rowLabels, font.label)
        let columnLabelsWidth = widest(heatmap.columnLabels, font.label)
        columnLabelsUpright = columnLabelsWidth > cell - 6
        let left = padding + font.axisTitle + 10 + rowLabelsWidth + 6
        let top = padding + font.title + 16
        grid = Rect(
            x: left, y: top, width: cell * Double(heatmap.columnLabels.count),
            height: cell * Double(heatmap.rowLabels.count))
        scale = Rect(x: grid.right + 20, y: grid.y, width: 14, height: grid.height)
        let columnLabelsHeight = columnLabelsUpright ? columnLabelsWidth + 6 : 16
        width = max(
            scale.right + 6 + Self.scaleLabelWidth + 6 + font.axisTitle + padding,
            2 * padding + SVGDocument.textWidth(heatmap.title, size: font.title))
        height = max(grid.bottom + columnLabelsHeight + 10 + font.axisTitle, scale.bottom) + padding
    }
}
