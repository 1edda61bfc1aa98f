import COpenBLAS
import Foundation

/// `c = alpha · op(a) · op(b) + beta · c` on row-major matrices, where op(a) is `m × k` and op(b)
/// is `k × n`; `transposeA`/`transposeB` read `a`/`b` as stored transposed.
func gemm(_ m: Int, _ n: Int, _ k: Int,
          _ a: UnsafePointer<Float>, transposeA: Bool = false,
          _ b: UnsafePointer<Float>, transposeB: Bool = false,
          _ c: UnsafeMutablePointer<Float>, alpha: Float = 1, beta: Float = 0) {
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

/// The OpenBLAS this process runs on.
public enum OpenBLAS {
    /// One thread: the other core is usually busy, and two threads did not help on these shapes.
    static let configureOnce: Void = openblas_set_num_threads(1)

    /// The kernel family OpenBLAS chose for this CPU, e.g. `Haswell` or `SkylakeX`.
    public static var coreName: String { String(cString: openblas_get_corename()) }

    /// OpenBLAS 0.3.21 picks its Haswell kernels on AVX-512 CPUs it does not know, and reads
    /// `OPENBLAS_CORETYPE` only while it loads, before `main`. So where the CPU has AVX-512 and the
    /// variable is unset, this sets it and executes the program again; otherwise it returns.
    /// Call it first thing, before any output or threads matter.
    public static func restartWithAVX512KernelsIfPossible() {
        let environment = ProcessInfo.processInfo.environment
        guard environment["OPENBLAS_CORETYPE"] == nil, coreName.lowercased() != "skylakex",
              let cpuInfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              cpuInfo.split(separator: "\n").contains(where: { $0.hasPrefix("flags") && $0.split(separator: " ").contains("avx512f") })
        else { return }
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 1)
        if environment["OPENBLAS_NUM_THREADS"] == nil { setenv("OPENBLAS_NUM_THREADS", "1", 1) }
        fflush(nil)
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", arguments)
        // execv returns only if it failed; the Haswell kernels still work.
    }
}
