/// Long series reduced to at most two points per pixel column, the lowest and the highest in
/// their order, so that 100,000 samples keep their envelope (every peak) in a few hundred points.
public enum MinMaxReduction {
    public static func reduce(
        _ points: [(x: Double, y: Double)], columns: Int, x scale: LinearScale
    ) -> [(x: Double, y: Double)] {
        guard points.count > 2 * columns else { return points }
        var reduced: [(x: Double, y: Double)] = []
        reduced.reserveCapacity(2 * columns + 2)
        var column = Int.min
        var low: (x: Double, y: Double) = (0, 0), high: (x: Double, y: Double) = (0, 0)
        func flush() {
            guard column != Int.min else { return }
            reduced += low.x <= high.x ? [low, high] : [high, low]
        }
        for point in points where point.y.isFinite {
            let c = Int(scale(point.x).rounded(.down))
            if c != column {
                flush()
                column = c
                (low, high) = (point, point)
            } else {
                if point.y < low.y { low = point }
                if point.y > high.y { high = point }
            }
        }
        flush()
        return reduced
    }
}
