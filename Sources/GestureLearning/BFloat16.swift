import CLearningKernels

extension Float {
    /// The nearest bfloat16 (ties to even), as a Float: the upper 16 bits of a Float, the rest zero.
    var roundedToBFloat16: Float {
        guard isFinite else { return self }
        let bits = bitPattern
        return Float(bitPattern: (bits &+ 0x7FFF &+ (bits >> 16 & 1)) & 0xFFFF_0000)
    }
}

/// A weight matrix of bfloat16 values, packed for the products of one row by it that streaming
/// prediction makes: half the bytes of Floats, so the whole model stays in the core's L2 cache.
/// Without AVX-512 it keeps the Floats and OpenBLAS multiplies.
struct BFloat16Matrix {
    private let k: Int
    private let n: Int
    private let packed: [UInt32]
    private let floats: [Float]

    /// `matrix` is `k × n`, row-major, and its values are bfloat16s.
    init(_ matrix: UnsafePointer<Float>, k: Int, n: Int) {
        self.k = k
        self.n = n
        if PackedFactor.kernelIsAvailable {
            packed = [UInt32](unsafeUninitializedCapacity: gl_bfloat16_pair_count(Int32(k), Int32(n))) {
                buffer, count in
                gl_pack_bfloat16_pairs(matrix, Int32(k), Int32(n), buffer.baseAddress!)
                count = buffer.count
            }
            floats = []
        } else {
            packed = []
            floats = Array(UnsafeBufferPointer(start: matrix, count: k * n))
        }
    }

    /// y (`n`) = x (`k`) · the matrix, + y when `adding`.
    func multiply(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, adding: Bool) {
        if packed.isEmpty {
            gemm(1, n, k, x, floats, y, beta: adding ? 1 : 0)
        } else {
            packed.withUnsafeBufferPointer {
                gl_row_times_bfloat16_pairs(Int32(k), Int32(n), x, $0.baseAddress!, y, adding)
            }
        }
    }
}
