/// A rectangle on the page.
struct Rect {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    var right: Double { x + width }
    var bottom: Double { y + height }
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }
}

/// The room around a plot area: for tick labels, axis titles, the legend and the labels above.
struct Insets {
    var left: Double
    var right: Double
    var top: Double
    var bottom: Double
}
