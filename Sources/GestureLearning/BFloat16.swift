import CLearningKernels
import COpenBLAS
import FoundationEssentials
import Glibc

extension Float {
    /// The nearest bfloat16 (ties to even), as a Float: the upper 16 bits of a Float, the rest zero.
    var roundedToBFloat16: Float {
        guard isFinite else { return self }
        let bits = bitPattern
        return Float(bitPattern: (bits &+ 0x7FFF &+ (bits >> 16 & 1)) & 0xFFFF_0000)
    }
}

/// Which kernels do the matrix products: GestureLab's own for an instruction set, or OpenBLAS's.
/// The fastest this CPU has is chosen, unless `GESTURELAB_KERNELS` names one (read once), so that
/// a test or a benchmark can take the path of a CPU without AVX-512 on one with it.
public enum ProductKernels: String, CaseIterable, Sendable {
    /// AVX-512 kernels for every product, packed bfloat16 weights for one row's (x86-64).
    case avx512
    /// AVX2 and FMA for one row's products, on packed bfloat16 weights, and for training's products
    /// of many rows; OpenBLAS for a few rows (x86-64).
    case avx2
    /// NEON for one row's products, on packed bfloat16 weights; OpenBLAS for the rest (aarch64).
    case neon
    /// OpenBLAS for every product, on the Float weights: where none of the above runs, it is faster
    /// than plain C (11.8 µs a prediction against 18.8 on the development machine).
    case openblas
    /// Plain C for one row's products, on packed bfloat16 weights; OpenBLAS for the rest: any CPU.
    case portable

    /// Whether this CPU runs them.
    public var isAvailable: Bool {
        switch self {
        case .avx512: gl_has_avx512f()
        case .avx2:
            #if arch(x86_64)
            gl_has_avx2_fma()
            #else
            false
            #endif
        case .neon:
            #if arch(arm64)
            true
            #else
            false
            #endif
        case .openblas, .portable: true
        }
    }

    /// Those this CPU runs, fastest first.
    public static var available: [ProductKernels] { allCases.filter(\.isAvailable) }

    /// `GESTURELAB_KERNELS`'s, or the fastest this CPU runs; a name it does not know, or kernels
    /// this CPU lacks, end the process with a message.
    public static let chosen: ProductKernels = {
        guard let name = getenv("GESTURELAB_KERNELS").map({ String(cString: $0) }) else { return available[0] }
        guard let kernels = ProductKernels(rawValue: name), kernels.isAvailable else {
            let names = available.map(\.rawValue).joined(separator: ", ")
            let message = "gesture: GESTURELAB_KERNELS=\(name) is not one this CPU runs (\(names))\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(1)
        }
        return kernels
    }()

    /// y (`n`) = x (`k`) · the matrix `gl_pack_bfloat16_pairs` packed, + y when `adding`.
    fileprivate func multiply(
        _ x: UnsafePointer<Float>, pairs: UnsafePointer<UInt32>, k: Int, n: Int, into y: UnsafeMutablePointer<Float>,
        adding: Bool
    ) {
        switch self {
        case .avx512: gl_row_times_bfloat16_pairs_avx512(Int32(k), Int32(n), x, pairs, y, adding)
        case .avx2:
            #if arch(x86_64)
            gl_row_times_bfloat16_pairs_avx2(Int32(k), Int32(n), x, pairs, y, adding)
            #endif
        case .neon:
            #if arch(arm64)
            gl_row_times_bfloat16_pairs_neon(Int32(k), Int32(n), x, pairs, y, adding)
            #endif
        case .openblas, .portable: gl_row_times_bfloat16_pairs_portable(Int32(k), Int32(n), x, pairs, y, adding)
        }
    }
}

/// A weight matrix of bfloat16 values, packed for the products of one row by it that streaming
/// prediction makes: half the bytes of Floats, so the whole model stays in the core's L2 cache.
/// For OpenBLAS it keeps the Floats.
struct BFloat16Matrix {
    private let k: Int
    private let n: Int
    private let kernels: ProductKernels
    private let packed: [UInt32]
    private let floats: [Float]

    /// `matrix` is `k × n`, row-major, and its values are bfloat16s.
    init(_ matrix: UnsafePointer<Float>, k: Int, n: Int, kernels: ProductKernels = .chosen) {
        self.k = k
        self.n = n
        self.kernels = kernels
        if kernels == .openblas {
            packed = []
            floats = Array(UnsafeBufferPointer(start: matrix, count: k * n))
        } else {
            packed = [UInt32](unsafeUninitializedCapacity: gl_bfloat16_pair_count(Int32(k), Int32(n))) {
                buffer, count in
                gl_pack_bfloat16_pairs(matrix, Int32(k), Int32(n), buffer.baseAddress!)
                count = buffer.count
            }
            floats = []
        }
    }

    /// y (`n`) = x (`k`) · the matrix, + y when `adding`.
    func multiply(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, adding: Bool) {
        if kernels == .openblas {
            gl_openblas_sgemv(true, Int32(k), Int32(n), 1, floats, Int32(n), x, adding ? 1 : 0, y)
        } else {
            packed.withUnsafeBufferPointer {
                kernels.multiply(x, pairs: $0.baseAddress!, k: k, n: n, into: y, adding: adding)
            }
        }
    }
}
