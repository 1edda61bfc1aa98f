import COpenBLAS
import Testing

@testable import GestureLearning

@Suite struct PackedProductTests {
    /// Shapes that leave partial panels and partial row blocks, every way round, added or written.
    @Test(
        .enabled(if: PackedFactor.kernelIsAvailable),
        arguments: [(11, 37, 13), (8, 32, 5), (13, 70, 40), (17, 200, 800)],
        [(false, false), (true, false), (false, true), (true, true)])
    func kernelAgreesWithOpenBLAS(shape: (m: Int, n: Int, k: Int), transposes: (a: Bool, b: Bool)) {
        let a = Floats(random: shape.m * shape.k, seed: 30), b = Floats(random: shape.k * shape.n, seed: 31)
        let start = Floats(random: shape.m * shape.n, seed: 32)
        let packing = Floats(zeros: PackedFactor.packedCount(k: shape.k, n: shape.n))
        for beta: Float in [0, 1] {
            let viaKernel = Floats(start.array), viaOpenBLAS = Floats(start.array)
            gemm(
                shape.m, shape.n, shape.k, a.pointer, transposeA: transposes.a, b.pointer, transposeB: transposes.b,
                viaKernel.pointer, beta: beta, packing: packing.pointer)
            gemm(
                shape.m, shape.n, shape.k, a.pointer, transposeA: transposes.a, b.pointer, transposeB: transposes.b,
                viaOpenBLAS.pointer, beta: beta)
            for (kernel, openBLAS) in zip(viaKernel.array, viaOpenBLAS.array) {
                #expect(abs(kernel - openBLAS) <= 1e-5 * Float(shape.k))
            }
        }
    }

    /// A factor packed once serves several products.
    @Test(.enabled(if: PackedFactor.kernelIsAvailable))
    func packedOnceUsedTwice() {
        let b = Floats(random: 40 * 50, seed: 33), first = Floats(random: 9 * 40, seed: 34),
            second = Floats(random: 5 * 40, seed: 35)
        let packing = Floats(zeros: PackedFactor.packedCount(k: 40, n: 50))
        let factor = PackedFactor(b.pointer, k: 40, n: 50, packingInto: packing.pointer)
        for (a, rows) in [(first, 9), (second, 5)] {
            let viaKernel = Floats(zeros: rows * 50), viaOpenBLAS = Floats(zeros: rows * 50)
            factor.multiply(a.pointer, rows: rows, into: viaKernel.pointer)
            gemm(rows, 50, 40, a.pointer, b.pointer, viaOpenBLAS.pointer)
            #expect(zip(viaKernel.array, viaOpenBLAS.array).allSatisfy { abs($0 - $1) <= 1e-4 })
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
    @Test(.enabled(if: PackedFactor.kernelIsAvailable), arguments: [(264, 800), (128, 4), (200, 128), (7, 37)])
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
