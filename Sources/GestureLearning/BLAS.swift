import CLearningKernels
import COpenBLAS
import FoundationEssentials
import Glibc

/// `c = alpha · op(a) · op(b) + beta · c` on row-major matrices, where op(a) is `m × k` and op(b)
/// is `k × n`; `transposeA`/`transposeB` read `a`/`b` as stored transposed.
///
/// Given room to pack op(b) (`PackedFactor.packedCount(k:n:)` floats) on a CPU with AVX-512, at
/// least a block of rows to pay for the packing, alpha 1 and beta 0 or 1, the hand-written kernel
/// does it: 2–16 % faster than OpenBLAS on this model's shapes. Otherwise OpenBLAS.
func gemm(_ m: Int, _ n: Int, _ k: Int,
          _ a: UnsafePointer<Float>, transposeA: Bool = false,
          _ b: UnsafePointer<Float>, transposeB: Bool = false,
          _ c: UnsafeMutablePointer<Float>, alpha: Float = 1, beta: Float = 0,
          packing: UnsafeMutablePointer<Float>? = nil) {
    if let packing, PackedFactor.kernelIsAvailable, m >= PackedFactor.blockRows, alpha == 1, beta == 0 || beta == 1 {
        PackedFactor(b, k: k, n: n, transposed: transposeB, packingInto: packing)
            .multiply(a, rows: m, transposed: transposeA, into: c, adding: beta == 1)
        return
    }
    OpenBLAS.configureOnce
    let lda = transposeA ? m : k
    let ldb = transposeB ? k : n
    if m == 1 && !transposeA {
        // One row is a matrix–vector product; OpenBLAS 0.3.21's sgemm would pack all of b for it.
        cblas_sgemv(CblasRowMajor, transposeB ? CblasNoTrans : CblasTrans,
                    Int32(transposeB ? n : k), Int32(transposeB ? k : n),
                    alpha, b, Int32(ldb), a, 1, beta, c, 1)
        return
    }
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(n))
}

/// The right-hand factor of matrix products, packed in panels for the hand-written AVX-512 kernel.
/// Packed once, it serves any number of products, as the LSTM's recurrent weights do at every step
/// (OpenBLAS packs its operands again at every call, a fifth of the time of these small products).
/// Where the CPU lacks AVX-512, or without room to pack, the products go to OpenBLAS.
struct PackedFactor {
    /// Whether the CPU has AVX-512 and `GESTURELAB_OPENBLAS_ONLY` is unset (to measure OpenBLAS alone).
    static let kernelIsAvailable = gl_has_avx512f() && ProcessInfo.processInfo.environment["GESTURELAB_OPENBLAS_ONLY"] == nil
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

    /// c (`rows × n`) = op(a) · op(matrix), + c when `adding`; op(a) is `rows × k` (stored
    /// `k × rows` with `transposed`).
    func multiply(_ a: UnsafePointer<Float>, rows: Int, transposed transposedA: Bool = false,
                  into c: UnsafeMutablePointer<Float>, adding: Bool = true) {
        if let packed {
            gl_gemm_packed(Int32(rows), Int32(n), Int32(k), a, Int32(transposedA ? 1 : k), Int32(transposedA ? rows : 1),
                           packed, c, Int32(n), adding)
        } else {
            gemm(rows, n, k, a, transposeA: transposedA, matrix, transposeB: transposed, c, beta: adding ? 1 : 0)
        }
    }
}

/// The OpenBLAS this process runs on.
public enum OpenBLAS {
    /// One thread: the other core is usually busy, and two threads did not help on these shapes.
    static let configureOnce: Void = openblas_set_num_threads(1)

    /// The kernel family OpenBLAS chose for this CPU, e.g. `Haswell` or `SkylakeX`.
    public static var coreName: String { String(cString: openblas_get_corename()) }

    /// What does the matrix products: OpenBLAS's kernels, or GestureLab's own where it has them.
    public static var productKernels: String {
        PackedFactor.kernelIsAvailable ? "GestureLab's AVX-512 kernel (OpenBLAS \(coreName) for a few rows)" : "OpenBLAS \(coreName)"
    }

    /// OpenBLAS 0.3.21 picks its Haswell kernels on AVX-512 CPUs it does not know, and reads
    /// `OPENBLAS_CORETYPE` only while it loads, before `main`. So where the CPU has AVX-512 but
    /// OpenBLAS chose kernels without it, and the variable is unset, this sets it and executes the
    /// program again; otherwise it returns. Call it first thing, before any output or threads matter.
    public static func restartWithAVX512KernelsIfPossible() {
        let avx512Cores: Set = ["skylakex", "cooperlake", "sapphirerapids"]
        guard ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] == nil, !avx512Cores.contains(coreName.lowercased()),
              let cpuInfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              cpuInfo.split(separator: "\n").contains(where: { $0.hasPrefix("flags") && $0.split(separator: " ").contains("avx512f") })
        else { return }
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 1)
        if ProcessInfo.processInfo.environment["OPENBLAS_NUM_THREADS"] == nil { setenv("OPENBLAS_NUM_THREADS", "1", 1) }
        fflush(nil)
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", arguments)
        // execv returns only if it failed; the Haswell kernels still work.
    }
}
