import Foundation

/// A confusion matrix drawn as seaborn draws one: each cell shaded by its share of its row, with
/// the share to two significant digits and the count beneath, axis titles, a colour scale, and a
/// canvas sized to its labels so that no text is cut.
public struct Heatmap: Sendable {
    public var title: String
    public var rowTitle: String
    public var columnTitle: String
    public var rowLabels: [String]
    public var columnLabels: [String]
    /// `counts[row][column]`.
    public var counts: [[Int]]

    public init(
        title: String, rowTitle: String = "target", columnTitle: String = "predicted", rowLabels: [String],
        columnLabels: [String], counts: [[Int]]
    ) {
        self.title = title
        self.rowTitle = rowTitle
        self.columnTitle = columnTitle
        self.rowLabels = rowLabels
        self.columnLabels = columnLabels
        self.counts = counts
    }

    /// Each cell's share of its row's total; 0 in a row without counts.
    public var shares: [[Double]] {
        counts.map { row in
            let total = row.reduce(0, +)
            return row.map { total > 0 ? Double($0) / Double(total) : 0 }
        }
    }

    public var svg: SVGDocument {
        let layout = Layout(self)
        var svg = SVGDocument(width: layout.width, height: layout.height)
        svg.text(title, x: layout.margin, y: 20, size: Layout.titleSize)
        svg.text(
            columnTitle, x: layout.left + layout.gridWidth / 2, y: layout.top - 26, size: Layout.labelSize,
            anchor: .middle)
        svg.text(
            rowTitle, x: layout.margin + Layout.labelSize, y: layout.top + layout.gridHeight / 2,
            size: Layout.labelSize, anchor: .middle, rotated: true)
        for (c, label) in columnLabels.enumerated() {
            svg.text(
                label, x: layout.left + layout.cell * (Double(c) + 0.5), y: layout.top - 8, size: Layout.labelSize,
                anchor: .middle)
        }
        for (r, label) in rowLabels.enumerated() {
            let y = layout.top + layout.cell * Double(r)
            svg.text(label, x: layout.left - 8, y: y + layout.cell / 2 + 4, size: Layout.labelSize, anchor: .end)
            for c in counts[r].indices {
                drawCell(row: r, column: c, at: (layout.left + layout.cell * Double(c), y), size: layout.cell, on: &svg)
            }
        }
        drawScale(layout, on: &svg)
        return svg
    }

    private func drawCell(
        row: Int, column: Int, at origin: (x: Double, y: Double), size: Double, on svg: inout SVGDocument
    ) {
        let share = shares[row][column]
        let ink = share > 0.5 ? "#fff" : "#222"
        svg.rect(x: origin.x, y: origin.y, width: size, height: size, fill: Blues.color(share), stroke: "#fff")
        svg.text(
            Self.twoDigits(share), x: origin.x + size / 2, y: origin.y + size / 2, size: Layout.valueSize,
            anchor: .middle, color: ink)
        svg.text(
            "(\(counts[row][column]))", x: origin.x + size / 2, y: origin.y + size / 2 + 14, size: Layout.labelSize - 1,
            anchor: .middle, color: ink)
    }

    /// The colour scale beside the grid: shares from 0 at the bottom to 1 at the top.
    private func drawScale(_ layout: Layout, on svg: inout SVGDocument) {
        let steps = 50
        let x = layout.left + layout.gridWidth + 18
        let step = layout.gridHeight / Double(steps)
        for k in 0..<steps {
            let share = (Double(k) + 0.5) / Double(steps)
            svg.rect(
                x: x, y: layout.top + layout.gridHeight - step * Double(k + 1), width: 14, height: step + 0.3,
                fill: Blues.color(share))
        }
        for tick in [0.0, 0.5, 1.0] {
            svg.text(
                Self.twoDigits(tick), x: x + 20, y: layout.top + layout.gridHeight * (1 - tick) + 4,
                size: Layout.labelSize)
        }
        svg.text(
            "share of the row", x: x + 48, y: layout.top + layout.gridHeight / 2, size: Layout.labelSize,
            anchor: .middle, rotated: true)
    }

    /// A share to two significant digits: 0.95, 0.0056, 1, 0.
    static func twoDigits(_ value: Double) -> String {
        value == 0 ? "0" : String(format: "%.2g", value)
    }

    /// Where everything goes, from the labels' widths (estimated from their characters, generously).
    struct Layout {
        static let titleSize = 13.0, labelSize = 11.0, valueSize = 13.0
        let margin = 12.0
        let cell: Double, left: Double, top = 78.0, width: Double, height: Double
        let gridWidth: Double, gridHeight: Double

        init(_ heatmap: Heatmap) {
            let widestColumn = heatmap.columnLabels.map { Self.width(of: $0, size: Self.labelSize) }.max() ?? 0
            let widestRow = heatmap.rowLabels.map { Self.width(of: $0, size: Self.labelSize) }.max() ?? 0
            // Whole pixels, so that the canvas is too.
            cell = max(58, widestColumn + 10).rounded(.up)
            left = (margin + Self.labelSize + 10 + widestRow + 8).rounded(.up)
            gridWidth = cell * Double(heatmap.columnLabels.count)
            gridHeight = cell * Double(heatmap.rowLabels.count)
            let scale = 18 + 14 + 6 + 30 + Self.labelSize + 10
            width = max(left + gridWidth + scale, margin * 2 + Self.width(of: heatmap.title, size: Self.titleSize))
                .rounded(.up)
            height = top + gridHeight + margin
        }

        /// An upper bound of a sans-serif text's width: most glyphs are narrower than 0.62 em.
        static func width(of text: String, size: Double) -> Double { Double(text.count) * size * 0.62 }
    }
}

/// A sequential blue scale, light for 0 and dark for 1 (ColorBrewer's Blues, nine classes).
enum Blues {
    private static let stops: [(r: Double, g: Double, b: Double)] = [
        (247, 251, 255), (222, 235, 247), (198, 219, 239), (158, 202, 225), (107, 174, 214),
        (66, 146, 198), (33, 113, 181), (8, 81, 156), (8, 48, 107),
    ]

    static func color(_ share: Double) -> String {
        let position = min(max(share, 0), 1) * Double(stops.count - 1)
        let lower = Int(position.rounded(.down)), upper = min(lower + 1, stops.count - 1)
        let t = position - Double(lower)
        let mix = { (a: Double, b: Double) in Int((a + (b - a) * t).rounded()) }
        let (a, b) = (stops[lower], stops[upper])
        return String(format: "#%02x%02x%02x", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b))
    }
}
