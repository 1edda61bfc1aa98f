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

/// e^x to about 2 ulp, without calls to `expf` or SSE4's rounding, so it stays in vector registers
/// even for the x86-64 baseline: the LSTM takes a million per batch.
@inline(__always)
func fastExp(_ x: Lanes) -> Lanes {
    let x = x.replacing(with: -87, where: x .< -87).replacing(with: 88, where: x .> 88)
    // Adding 1.5 · 2²³ rounds x · log₂e to the nearest integer n, which then sits in the low bits.
    let shifted = x * 1.442_695_04 + 12_582_912
    let n = shifted - 12_582_912
    // ln 2 split in two, the first with few enough bits that n · ln2High is exact.
    let r = x - n * 0.693_145_751_953_125 - n * 1.428_606_765_330_187e-6
    var p = Lanes(repeating: 1.0 / 5040)
    p = p * r + 1.0 / 720
    p = p * r + 1.0 / 120
    p = p * r + 1.0 / 24
    p = p * r + 1.0 / 6
    p = p * r + 0.5
    p = p * r + 1
    p = p * r + 1
    let exponent = (unsafeBitCast(shifted, to: SIMD8<UInt32>.self) &- 0x4B40_0000 &+ 127) &<< 23
    return p * unsafeBitCast(exponent, to: Lanes.self)
}

@inline(__always)
func sigmoid(_ x: Lanes) -> Lanes { 1 / (1 + fastExp(-x)) }

@inline(__always)
func tanhApproximation(_ x: Lanes) -> Lanes { 2 / (1 + fastExp(-2 * x)) - 1 }

func applySigmoid(_ values: UnsafeMutablePointer<Float>, count: Int) {
    forEachLane(count) { lane in lane.store(sigmoid(lane.load(values)), values) }
}

func applyTanh(_ values: UnsafeMutablePointer<Float>, count: Int) {
    forEachLane(count) { lane in lane.store(tanhApproximation(lane.load(values)), values) }
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

/// `rows × columns` rows, each set to `bias`.
func broadcastRows(_ bias: UnsafePointer<Float>, to rows: UnsafeMutablePointer<Float>, rowCount: Int, columns: Int) {
    for row in 0..<rowCount { (rows + row * columns).update(from: bias, count: columns) }
}

/// Sums of each column of a row-major `rows × columns` matrix.
func columnSums(_ matrix: UnsafePointer<Float>, rows: Int, columns: Int, into sums: UnsafeMutablePointer<Float>) {
    sums.update(repeating: 0, count: columns)
    for row in 0..<rows {
        let values = matrix + row * columns
        forEachLane(columns) { lane in lane.store(lane.load(sums) + lane.load(values), sums) }
    }
}
