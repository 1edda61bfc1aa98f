/// A grid of values as shaded cells with their numbers: a confusion matrix (rows: true gesture,
/// columns: predicted) or the sessions per gesture and user.
public struct Heatmap: Sendable {
    public var title: String
    public var rowLabels: [String]
    public var columnLabels: [String]
    public var values: [[Double]]

    public init(title: String, rowLabels: [String], columnLabels: [String], values: [[Double]]) {
        self.title = title
        self.rowLabels = rowLabels
        self.columnLabels = columnLabels
        self.values = values
    }

    public func svg(cell: Double = 48) -> SVGDocument {
        let left = 110.0, top = 70.0
        var svg = SVGDocument(
            width: left + cell * Double(columnLabels.count) + 20, height: top + cell * Double(rowLabels.count) + 20)
        svg.text(title, x: left, y: 18, size: 13)
        let highest = max(1e-12, values.flatMap { $0 }.filter(\.isFinite).max() ?? 1)
        for (c, label) in columnLabels.enumerated() {
            svg.text(label, x: left + cell * (Double(c) + 0.5), y: top - 8, size: 10, anchor: .middle)
        }
        for (r, label) in rowLabels.enumerated() {
            let y = top + cell * Double(r)
            svg.text(label, x: left - 8, y: y + cell / 2 + 4, size: 10, anchor: .end)
            for (c, value) in values[r].enumerated() {
                let x = left + cell * Double(c)
                let share = value.isFinite ? value / highest : 0
                svg.rect(
                    x: x, y: y, width: cell, height: cell, fill: Palette.colors[0], opacity: max(0.03, share),
                    stroke: "#fff")
                svg.text(
                    LineChart.label(value), x: x + cell / 2, y: y + cell / 2 + 4, size: 11, anchor: .middle,
                    color: share > 0.55 ? "#fff" : "#222")
            }
        }
        return svg
    }
}
