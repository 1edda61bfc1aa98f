/// e^x to about 2 ulp, in arithmetic the compiler vectorizes (a call to `expf` stops it): the
/// LSTM takes a million of them per batch.
@inline(__always)
func fastExp(_ x: Float) -> Float {
    let x = min(max(x, -87), 88)
    let n = (x * 1.442_695_04).rounded(.toNearestOrEven)
    // ln 2 split in two, the first with few enough bits that n · ln2High is exact.
    let r = x - n * 0.693_145_751_953_125 - n * 1.428_606_765_330_187e-6
    var p: Float = 1.0 / 5040
    p = p * r + 1.0 / 720
    p = p * r + 1.0 / 120
    p = p * r + 1.0 / 24
    p = p * r + 1.0 / 6
    p = p * r + 0.5
    p = p * r + 1
    p = p * r + 1
    return p * Float(bitPattern: UInt32(truncatingIfNeeded: Int32(n) + 127) << 23)
}

@inline(__always)
func sigmoid(_ x: Float) -> Float { 1 / (1 + fastExp(-x)) }

@inline(__always)
func tanhApproximation(_ x: Float) -> Float { 2 / (1 + fastExp(-2 * x)) - 1 }

func applySigmoid(_ values: UnsafeMutablePointer<Float>, count: Int) {
    for index in 0..<count { values[index] = sigmoid(values[index]) }
}

func applyTanh(_ values: UnsafeMutablePointer<Float>, count: Int) {
    for index in 0..<count { values[index] = tanhApproximation(values[index]) }
}

/// ReLU in place.
func applyReLU(_ values: UnsafeMutablePointer<Float>, count: Int) {
    for index in 0..<count { values[index] = max(values[index], 0) }
}

/// Passes back the gradient where the ReLU's output was positive.
func reluBackward(output: UnsafePointer<Float>, gradient: UnsafeMutablePointer<Float>, count: Int) {
    for index in 0..<count where output[index] <= 0 { gradient[index] = 0 }
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
        for column in 0..<columns { sums[column] += values[column] }
    }
}
