import COpenBLAS
import Testing

@testable import GestureLearning

/// The kernel sets with a kernel for packed factors that this CPU runs: each is tested, not only
/// the one chosen.
let packedKernelSets = ProductKernels.available.filter { PackedFactor.kernel(of: $0) != nil }

@Suite struct PackedProductTests {
    /// Shapes that leave partial panels and partial row blocks, every way round, added or written.
    @Test(arguments: packedKernelSets, [(11, 37, 13), (8, 32, 5), (13, 70, 40), (17, 200, 800), (5, 16, 3)])
    func kernelAgreesWithOpenBLAS(kernels: ProductKernels, shape: (m: Int, n: Int, k: Int)) {
        let a = Floats(random: shape.m * shape.k, seed: 30), b = Floats(random: shape.k * shape.n, seed: 31)
        let start = Floats(random: shape.m * shape.n, seed: 32)
        let packing = Floats(zeros: PackedFactor.packedCount(k: shape.k, n: shape.n))
        let transposes: [(a: Bool, b: Bool)] = [(false, false), (true, false), (false, true), (true, true)]
        for transposes in transposes {
            for beta: Float in [0, 1] {
                let viaKernel = Floats(start.array), viaOpenBLAS = Floats(start.array)
                PackedFactor(
                    b.pointer, k: shape.k, n: shape.n, transposed: transposes.b, packingInto: packing.pointer,
                    kernel: PackedFactor.kernel(of: kernels)
                ).multiply(
                    a.pointer, rows: shape.m, transposed: transposes.a, into: viaKernel.pointer, adding: beta == 1)
                gl_openblas_sgemm(
                    transposes.a, transposes.b, Int32(shape.m), Int32(shape.n), Int32(shape.k), 1, a.pointer,
                    Int32(transposes.a ? shape.m : shape.k), b.pointer, Int32(transposes.b ? shape.k : shape.n), beta,
                    viaOpenBLAS.pointer, Int32(shape.n))
                for (kernel, openBLAS) in zip(viaKernel.array, viaOpenBLAS.array) {
                    #expect(abs(kernel - openBLAS) <= 1e-5 * Float(shape.k))
                }
            }
        }
    }

    /// A factor stored transposed is packed into the same panels, bit for bit, as its transpose
    /// written out: whole and partial tiles of 8 × 8, panels and blocks of 16 rows.
    @Test(arguments: [(800, 200), (13, 37), (16, 8), (7, 5), (24, 70), (200, 800), (9, 33)])
    func aTransposedFactorPacksAsItsTransposeWrittenOut(shape: (k: Int, n: Int)) {
        let stored = Floats(random: shape.n * shape.k, seed: 39)
        let writtenOut = Floats((0..<shape.k * shape.n).map { stored.array[($0 % shape.n) * shape.k + $0 / shape.n] })
        let count = PackedFactor.packedCount(k: shape.k, n: shape.n)
        let fromTransposed = Floats(random: count, seed: 43), fromWrittenOut = Floats(random: count, seed: 44)
        let kernel = PackedFactor.kernel(of: .avx2)
        _ = PackedFactor(
            stored.pointer, k: shape.k, n: shape.n, transposed: true, packingInto: fromTransposed.pointer,
            kernel: kernel)
        _ = PackedFactor(
            writtenOut.pointer, k: shape.k, n: shape.n, packingInto: fromWrittenOut.pointer, kernel: kernel)
        #expect(fromTransposed.array == fromWrittenOut.array)
    }

    /// A factor packed once serves several products.
    @Test(arguments: packedKernelSets)
    func packedOnceUsedTwice(kernels: ProductKernels) {
        let b = Floats(random: 40 * 50, seed: 33), first = Floats(random: 9 * 40, seed: 34),
            second = Floats(random: 5 * 40, seed: 35)
        let packing = Floats(zeros: PackedFactor.packedCount(k: 40, n: 50))
        let factor = PackedFactor(
            b.pointer, k: 40, n: 50, packingInto: packing.pointer, kernel: PackedFactor.kernel(of: kernels))
        for (a, rows) in [(first, 9), (second, 5)] {
            let viaKernel = Floats(zeros: rows * 50), viaOpenBLAS = Floats(zeros: rows * 50)
            factor.multiply(a.pointer, rows: rows, into: viaKernel.pointer)
            gemm(rows, 50, 40, a.pointer, b.pointer, viaOpenBLAS.pointer)
            #expect(zip(viaKernel.array, viaOpenBLAS.array).allSatisfy { abs($0 - $1) <= 1e-4 })
        }
    }

    /// Threads that share a product's packing and columns give exactly one thread's values, for
    /// the model's shapes (an LSTM step, a weight gradient) and uneven ones.
    @Test(arguments: packedKernelSets, [(32, 800, 200), (200, 800, 900), (37, 70, 300), (9, 100, 1000)])
    func sharedAmongThreadsGivesOneThreadsValues(kernels: ProductKernels, shape: (m: Int, n: Int, k: Int)) {
        let a = Floats(random: shape.m * shape.k, seed: 36), b = Floats(random: shape.k * shape.n, seed: 37)
        let start = Floats(random: shape.m * shape.n, seed: 38)
        let packing = Floats(zeros: PackedFactor.packedCount(k: shape.k, n: shape.n))
        let product = { (team: ThreadTeam?, transposes: (a: Bool, b: Bool)) in
            let c = Floats(start.array)
            PackedFactor(
                b.pointer, k: shape.k, n: shape.n, transposed: transposes.b, packingInto: packing.pointer, team: team,
                kernel: PackedFactor.kernel(of: kernels)
            ).multiply(a.pointer, rows: shape.m, transposed: transposes.a, into: c.pointer, team: team)
            return c.array
        }
        for transposes: (a: Bool, b: Bool) in [(false, false), (true, true)] {
            let alone = product(nil, transposes)
            for threads in [2, 3] {
                #expect(product(ThreadTeam(threads: threads), transposes) == alone, "\(threads) threads")
            }
        }
    }
}

@Suite struct BFloat16Tests {
    @Test func roundsToTheNearestBFloat16TiesToEven() {
        let step = Float(1) / 128 // the spacing of bfloat16 values in [1, 2)
        #expect(Float(1).roundedToBFloat16 == 1)
        #expect((1 + step * 0.4).roundedToBFloat16 == 1)
        #expect((1 + step * 0.6).roundedToBFloat16 == 1 + step)
        #expect((1 + step * 0.5).roundedToBFloat16 == 1)
        #expect((1 + step * 1.5).roundedToBFloat16 == 1 + 2 * step)
        #expect((-3.14159 as Float).roundedToBFloat16 == -3.140625)
        #expect(Float.infinity.roundedToBFloat16 == .infinity)
    }

    /// Shapes with whole and partial groups of 32 columns, as the model's (64, 800, 128) and others,
    /// on every kernel set this CPU runs.
    @Test(
        arguments: [(120, 64), (264, 800), (200, 128), (13, 37), (5, 4), (7, 300), (3, 97)],
        ProductKernels.available)
    func packedProductEqualsTheFloatProduct(shape: (k: Int, n: Int), kernels: ProductKernels) {
        let matrix = Floats(Floats(random: shape.k * shape.n, seed: 40).array.map(\.roundedToBFloat16))
        let x = Floats(random: shape.k, seed: 41), start = Floats(random: shape.n, seed: 42)
        let packed = BFloat16Matrix(matrix.pointer, k: shape.k, n: shape.n, kernels: kernels)
        for adding in [false, true] {
            let viaPacked = Floats(start.array), viaFloats = Floats(start.array)
            packed.multiply(x.pointer, into: viaPacked.pointer, adding: adding)
            gemm(1, shape.n, shape.k, x.pointer, matrix.pointer, viaFloats.pointer, beta: adding ? 1 : 0)
            for (packedValue, floatValue) in zip(viaPacked.array, viaFloats.array) {
                #expect(abs(packedValue - floatValue) <= 1e-6 * Float(shape.k))
            }
        }
    }
}

@Suite struct SingleRowProductTests {
    @Test(.enabled(if: ProductKernels.chosen == .avx512), arguments: [(264, 800), (128, 4), (200, 128), (7, 37)])
    func singleRowKernelAgreesWithOpenBLAS(shape: (k: Int, n: Int)) {
        let a = Floats(random: shape.k, seed: 50), b = Floats(random: shape.k * shape.n, seed: 51)
        let start = Floats(random: shape.n, seed: 52)
        for beta: Float in [0, 1] {
            let viaKernel = Floats(start.array), viaOpenBLAS = Floats(start.array)
            gemm(1, shape.n, shape.k, a.pointer, b.pointer, viaKernel.pointer, beta: beta)
            gl_openblas_sgemv(
                true, Int32(shape.k), Int32(shape.n), 1, b.pointer, Int32(shape.n), a.pointer, beta,
                viaOpenBLAS.pointer)
            for (kernel, openBLAS) in zip(viaKernel.array, viaOpenBLAS.array) {
                #expect(abs(kernel - openBLAS) <= 1e-5 * Float(shape.k))
            }
        }
    }
}
