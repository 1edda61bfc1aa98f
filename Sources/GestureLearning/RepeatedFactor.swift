import CLearningKernels

/// The right-hand factor of a product repeated many times, as the LSTM's recurrent weights are at
/// every step. On AVX-512 CPUs it is packed once for a hand-written kernel (OpenBLAS packs its
/// operands again at every call, which costs a fifth of these small products); elsewhere, or
/// without room to pack, each product goes to OpenBLAS.
struct RepeatedFactor {
    static let kernelIsAvailable = gl_has_avx512f()

    /// The floats packing a `k × n` factor takes.
    static func packedCount(k: Int, n: Int) -> Int { gl_packed_count(Int32(k), Int32(n)) }

    private let matrix: UnsafePointer<Float>
    private let k: Int
    private let n: Int
    private let transposed: Bool
    private let packed: UnsafeMutablePointer<Float>?

    /// op(matrix) is `k × n`; `matrix` is row-major, holding the transpose (`n × k`) with
    /// `transposed`. `packing` has room for `packedCount(k:n:)` floats, or is nil for OpenBLAS.
    init(_ matrix: UnsafePointer<Float>, k: Int, n: Int, transposed: Bool = false,
         packingInto packing: UnsafeMutablePointer<Float>?) {
        self.matrix = matrix
        self.k = k
        self.n = n
        self.transposed = transposed
        packed = Self.kernelIsAvailable ? packing : nil
        if let packed {
            gl_pack_panels(matrix, Int32(k), Int32(n), Int32(transposed ? k : n), transposed, packed)
        }
    }

    /// c (`rows × n`) += a (`rows × k`) · op(matrix).
    func multiplyAdd(_ a: UnsafePointer<Float>, rows: Int, into c: UnsafeMutablePointer<Float>) {
        if let packed {
            gl_gemm_packed(Int32(rows), Int32(n), Int32(k), a, Int32(k), packed, c, Int32(n))
        } else {
            gemm(rows, n, k, a, matrix, transposeB: transposed, c, beta: 1)
        }
    }
}
