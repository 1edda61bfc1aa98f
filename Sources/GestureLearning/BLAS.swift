import CLearningKernels
import COpenBLAS

/// `c = alpha · op(a) · op(b) + beta · c` on row-major matrices, where op(a) is `m × k` and op(b)
/// is `k × n`; `transposeA`/`transposeB` read `a`/`b` as stored transposed.
///
/// On a CPU with AVX-512, given room to pack op(b) (`PackedFactor.packedCount(k:n:)` floats), at
/// least a block of rows to pay for the packing, alpha 1 and beta 0 or 1, the hand-written kernel
/// does it: 2–16 % faster than OpenBLAS on this model's shapes; so does another for a single row
/// (as fast as OpenBLAS, and streaming prediction then never loads it). Without AVX-512, plain C
/// does a single row by a small matrix, for the same reason. Otherwise OpenBLAS.
func gemm(
    _ m: Int, _ n: Int, _ k: Int,
    _ a: UnsafePointer<Float>, transposeA: Bool = false,
    _ b: UnsafePointer<Float>, transposeB: Bool = false,
    _ c: UnsafeMutablePointer<Float>, alpha: Float = 1, beta: Float = 0,
    packing: UnsafeMutablePointer<Float>? = nil
) {
    let kernelApplies = PackedFactor.kernelIsAvailable && alpha == 1 && (beta == 0 || beta == 1)
    if kernelApplies, let packing, m >= PackedFactor.blockRows {
        PackedFactor(b, k: k, n: n, transposed: transposeB, packingInto: packing)
            .multiply(a, rows: m, transposed: transposeA, into: c, adding: beta == 1)
        return
    }
    if kernelApplies, m == 1, !transposeA, !transposeB {
        gl_row_times_matrix(Int32(k), Int32(n), a, b, Int32(n), c, beta == 1)
        return
    }
    if ProductKernels.chosen != .openblas, m == 1, !transposeA, !transposeB, k * n <= 4096, alpha == 1,
        beta == 0 || beta == 1
    {
        // A model's output layer: streaming prediction then never loads OpenBLAS.
        gl_row_times_small_matrix(Int32(k), Int32(n), a, b, c, beta == 1)
        return
    }
    if m == 1 && !transposeA {
        // One row is a matrix–vector product; OpenBLAS 0.3.21's sgemm would pack all of b for it.
        gl_openblas_sgemv(
            !transposeB, Int32(transposeB ? n : k), Int32(transposeB ? k : n), alpha, b,
            Int32(transposeB ? k : n), a, beta, c)
        return
    }
    gl_openblas_sgemm(
        transposeA, transposeB, Int32(m), Int32(n), Int32(k), alpha, a, Int32(transposeA ? m : k),
        b, Int32(transposeB ? k : n), beta, c, Int32(n))
}

/// The right-hand factor of matrix products, packed in panels for the hand-written AVX-512 kernel.
/// Packed once, it serves any number of products, as the LSTM's recurrent weights do at every step
/// (OpenBLAS packs its operands again at every call, a fifth of the time of these small products).
/// Where the CPU lacks AVX-512, or without room to pack, the products go to OpenBLAS.
struct PackedFactor {
    /// Whether the products take the AVX-512 kernels (see `ProductKernels.chosen`).
    static let kernelIsAvailable = ProductKernels.chosen == .avx512
    /// The rows the kernel computes together.
    static let blockRows = 8

    /// The floats packing a `k × n` factor takes.
    static func packedCount(k: Int, n: Int) -> Int { gl_packed_count(Int32(k), Int32(n)) }

    private let matrix: UnsafePointer<Float>
    private let k: Int
    private let n: Int
    private let transposed: Bool
    private let packed: UnsafeMutablePointer<Float>?

    /// op(matrix) is `k × n`; `matrix` is row-major, holding the transpose (`n × k`) with
    /// `transposed`. `packing` has room for `packedCount(k:n:)` floats, or is nil for OpenBLAS.
    init(
        _ matrix: UnsafePointer<Float>, k: Int, n: Int, transposed: Bool = false,
        packingInto packing: UnsafeMutablePointer<Float>?
    ) {
        self.matrix = matrix
        self.k = k
        self.n = n
        self.transposed = transposed
        packed = Self.kernelIsAvailable ? packing : nil
        if let packed {
            gl_pack_panels(matrix, Int32(k), Int32(n), Int32(transposed ? k : n), transposed, packed)
        }
    }

    /// c (`rows × n`) = op(a) · op(matrix), + c when `adding`; op(a) is `rows × k` (stored
    /// `k × rows` with `transposed`).
    func multiply(
        _ a: UnsafePointer<Float>, rows: Int, transposed transposedA: Bool = false,
        into c: UnsafeMutablePointer<Float>, adding: Bool = true
    ) {
        if let packed {
            gl_gemm_packed(
                Int32(rows), Int32(n), Int32(k), a, Int32(transposedA ? 1 : k), Int32(transposedA ? rows : 1),
                packed, c, Int32(n), adding)
        } else {
            gemm(rows, n, k, a, transposeA: transposedA, matrix, transposeB: transposed, c, beta: adding ? 1 : 0)
        }
    }
}

/// The OpenBLAS this process runs on, loaded when first used (see COpenBLAS.h).
public enum OpenBLAS {
    /// The kernel family OpenBLAS chose for this CPU, e.g. `Haswell` or `SkylakeX`.
    public static var coreName: String { String(cString: gl_openblas_corename()) }

    /// What does the matrix products: OpenBLAS's kernels, or GestureLab's own where it has them.
    public static var productKernels: String {
        switch ProductKernels.chosen {
        case .avx512: "GestureLab's AVX-512 kernel (OpenBLAS \(coreName) for a few rows)"
        case .openblas: "OpenBLAS \(coreName)"
        case let kernels: "GestureLab's \(kernels) kernel for one row, OpenBLAS \(coreName) for the rest"
        }
    }
}
