import CLearningKernels
import COpenBLAS

/// `c = alpha · op(a) · op(b) + beta · c` on row-major matrices, where op(a) is `m × k` and op(b)
/// is `k × n`; `transposeA`/`transposeB` read `a`/`b` as stored transposed.
///
/// On a CPU with AVX-512 or AVX2, given room to pack op(b) (`PackedFactor.packedCount(k:n:)`
/// floats), at least a block of rows to pay for the packing, alpha 1 and beta 0 or 1, a
/// hand-written kernel does it: 2–16 % faster than OpenBLAS on this model's shapes with AVX-512;
/// so does another for a single row with AVX-512 (as fast as OpenBLAS, and streaming prediction
/// then never loads it). Without AVX-512, plain C does a single row by a small matrix, for the same
/// reason. Otherwise OpenBLAS. `team`'s threads share large products, by rows with the
/// hand-written kernels (the results are then one thread's) and by columns with OpenBLAS (they
/// differ in rounding).
func gemm(
    _ m: Int, _ n: Int, _ k: Int,
    _ a: UnsafePointer<Float>, transposeA: Bool = false,
    _ b: UnsafePointer<Float>, transposeB: Bool = false,
    _ c: UnsafeMutablePointer<Float>, alpha: Float = 1, beta: Float = 0,
    packing: UnsafeMutablePointer<Float>? = nil, team: ThreadTeam? = nil
) {
    let kernelApplies = alpha == 1 && (beta == 0 || beta == 1)
    if kernelApplies, PackedFactor.chosenKernel != nil, let packing, m >= PackedFactor.blockRows {
        PackedFactor(b, k: k, n: n, transposed: transposeB, packingInto: packing, team: team)
            .multiply(a, rows: m, transposed: transposeA, into: c, adding: beta == 1, team: team)
        return
    }
    if kernelApplies, ProductKernels.chosen == .avx512, m == 1, !transposeA, !transposeB {
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
    ThreadTeam.split(team, work: m * n * k, n, step: 16) { columns in
        gl_openblas_sgemm(
            transposeA, transposeB, Int32(m), Int32(columns.count), Int32(k), alpha, a, Int32(transposeA ? m : k),
            b + columns.lowerBound * (transposeB ? k : 1), Int32(transposeB ? k : n), beta, c + columns.lowerBound,
            Int32(n))
    }
}

/// The right-hand factor of matrix products, packed in panels for the hand-written AVX-512 or AVX2
/// kernel. Packed once, it serves any number of products, as the LSTM's recurrent weights do at
/// every step (OpenBLAS packs its operands again at every call, a fifth of the time of these small
/// products). Where the CPU has neither, or without room to pack, the products go to OpenBLAS.
struct PackedFactor {
    typealias Kernel =
        @convention(c) (
            Int32, Int32, Int32, UnsafePointer<Float>?, Int32, Int32, UnsafePointer<Float>?,
            UnsafeMutablePointer<Float>?,
            Int32, Bool
        ) -> Void

    /// The kernel of a set, if it has one.
    static func kernel(of kernels: ProductKernels) -> Kernel? {
        switch kernels {
        case .avx512: gl_gemm_packed_avx512
        case .avx2: gl_gemm_packed_avx2
        case .neon, .openblas, .portable: nil
        }
    }

    /// The kernel of `ProductKernels.chosen`, if it has one.
    static let chosenKernel = kernel(of: .chosen)
    /// The rows the kernel computes together.
    static let blockRows = 8
    /// The columns of a panel.
    static let panelWidth = 32

    /// The floats packing a `k × n` factor takes.
    static func packedCount(k: Int, n: Int) -> Int { gl_packed_count(Int32(k), Int32(n)) }

    private let kernel: Kernel?
    private let matrix: UnsafePointer<Float>
    private let k: Int
    private let n: Int
    private let transposed: Bool
    private let packed: UnsafeMutablePointer<Float>?

    /// op(matrix) is `k × n`; `matrix` is row-major, holding the transpose (`n × k`) with
    /// `transposed`. `packing` has room for `packedCount(k:n:)` floats, or is nil for OpenBLAS.
    /// `team`'s threads pack a share of the panels each. `kernel` is the chosen set's unless told.
    init(
        _ matrix: UnsafePointer<Float>, k: Int, n: Int, transposed: Bool = false,
        packingInto packing: UnsafeMutablePointer<Float>?, team: ThreadTeam? = nil, kernel: Kernel? = chosenKernel
    ) {
        self.kernel = kernel
        self.matrix = matrix
        self.k = k
        self.n = n
        self.transposed = transposed
        packed = kernel == nil ? nil : packing
        guard let packed else { return }
        ThreadTeam.split(team, work: k * n * Self.blockRows, n, step: Self.panelWidth) { columns in
            gl_pack_panels(
                matrix + columns.lowerBound * (transposed ? k : 1), Int32(k), Int32(columns.count),
                Int32(transposed ? k : n), transposed, packed + columns.lowerBound * k)
        }
    }

    /// c (`rows × n`) = op(a) · op(matrix), + c when `adding`; op(a) is `rows × k` (stored
    /// `k × rows` with `transposed`). `team`'s threads take a share of the rows each.
    func multiply(
        _ a: UnsafePointer<Float>, rows: Int, transposed transposedA: Bool = false,
        into c: UnsafeMutablePointer<Float>, adding: Bool = true, team: ThreadTeam? = nil
    ) {
        guard let packed, let kernel else {
            return gemm(
                rows, n, k, a, transposeA: transposedA, matrix, transposeB: transposed, c, beta: adding ? 1 : 0,
                team: team)
        }
        // By rows: every thread reads the whole packed factor, and an LSTM step's 32 rows split
        // evenly where its 200 columns (7 panels) would not.
        ThreadTeam.split(team, work: rows * n * k, rows, step: Self.blockRows) { share in
            kernel(
                Int32(share.count), Int32(n), Int32(k), a + share.lowerBound * (transposedA ? 1 : k),
                Int32(transposedA ? 1 : k), Int32(transposedA ? rows : 1), packed, c + share.lowerBound * n, Int32(n),
                adding)
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
        case .avx512: "GestureLab's AVX-512 kernels (OpenBLAS \(coreName) for a few rows)"
        case .avx2: "GestureLab's AVX2 kernels (OpenBLAS \(coreName) for a few rows)"
        case .openblas: "OpenBLAS \(coreName)"
        case let kernels: "GestureLab's \(kernels) kernel for one row, OpenBLAS \(coreName) for the rest"
        }
    }
}
