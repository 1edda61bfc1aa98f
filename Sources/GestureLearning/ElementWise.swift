/// Eight floats, the width the element-wise kernels work in. The compiler does not vectorize the
/// plain loops by itself (it cannot prove the buffers do not overlap).
typealias Lanes = SIMD8<Float>

/// A position in an element-wise pass: eight elements, or a single one in the tail.
struct Lane {
    let index: Int
    let isSingle: Bool

    @inline(__always)
    func load(_ values: UnsafePointer<Float>) -> Lanes {
        isSingle ? Lanes(repeating: values[index]) : UnsafeRawPointer(values + index).loadUnaligned(as: Lanes.self)
    }

    @inline(__always)
    func store(_ lanes: Lanes, _ values: UnsafeMutablePointer<Float>) {
        if isSingle {
            values[index] = lanes[0]
        } else {
            UnsafeMutableRawPointer(values + index).storeBytes(of: lanes, as: Lanes.self)
        }
    }
}

/// Calls `body` for elements 0..<count, eight at a time, then one at a time.
@inline(__always)
func forEachLane(_ count: Int, _ body: (Lane) -> Void) {
    var index = 0
    while index + Lanes.scalarCount <= count {
        body(Lane(index: index, isSingle: false))
        index += Lanes.scalarCount
    }
    while index < count {
        body(Lane(index: index, isSingle: true))
        index += 1
    }
}

/// ReLU in place.
func applyReLU(_ values: UnsafeMutablePointer<Float>, count: Int) {
    forEachLane(count) { lane in
        let x = lane.load(values)
        lane.store(x.replacing(with: 0, where: x .< 0), values)
    }
}

/// Passes back the gradient where the ReLU's output was positive.
func reluBackward(output: UnsafePointer<Float>, gradient: UnsafeMutablePointer<Float>, count: Int) {
    forEachLane(count) { lane in
        lane.store(lane.load(gradient).replacing(with: 0, where: lane.load(output) .<= 0), gradient)
    }
}

/// Multiplies `values` by `factors` element by element, in place.
func multiply(_ values: UnsafeMutablePointer<Float>, by factors: UnsafePointer<Float>, count: Int) {
    forEachLane(count) { lane in lane.store(lane.load(values) * lane.load(factors), values) }
}

/// `rows × columns` rows, each set to `bias`; `team`'s threads set a share of the rows each.
func broadcastRows(
    _ bias: UnsafePointer<Float>, to rows: UnsafeMutablePointer<Float>, rowCount: Int, columns: Int,
    team: ThreadTeam? = nil
) {
    ThreadTeam.split(team, work: rowCount * columns, rowCount) { share in
        for row in share { (rows + row * columns).update(from: bias, count: columns) }
    }
}

/// Sums of each column of a row-major `rows × columns` matrix, each down its rows in order;
/// `team`'s threads sum a share of the columns each.
func columnSums(
    _ matrix: UnsafePointer<Float>, rows: Int, columns: Int, into sums: UnsafeMutablePointer<Float>,
    team: ThreadTeam? = nil
) {
    ThreadTeam.split(team, work: rows * columns, columns, step: 64) { share in
        let sums = sums + share.lowerBound
        sums.update(repeating: 0, count: share.count)
        for row in 0..<rows {
            let values = matrix + row * columns + share.lowerBound
            forEachLane(share.count) { lane in lane.store(lane.load(sums) + lane.load(values), sums) }
        }
    }
}
