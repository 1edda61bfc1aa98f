import Testing
@testable import GestureLearning

@Suite struct PackedProductTests {
    /// Shapes that leave partial panels and partial row blocks, every way round, added or written.
    @Test(.enabled(if: PackedFactor.kernelIsAvailable),
          arguments: [(11, 37, 13), (8, 32, 5), (13, 70, 40), (17, 200, 800)], [(false, false), (true, false), (false, true), (true, true)])
    func kernelAgreesWithOpenBLAS(shape: (m: Int, n: Int, k: Int), transposes: (a: Bool, b: Bool)) {
        let a = Floats(random: shape.m * shape.k, seed: 30), b = Floats(random: shape.k * shape.n, seed: 31)
        let start = Floats(random: shape.m * shape.n, seed: 32)
        let packing = Floats(zeros: PackedFactor.packedCount(k: shape.k, n: shape.n))
        for beta: Float in [0, 1] {
            let viaKernel = Floats(start.array), viaOpenBLAS = Floats(start.array)
            gemm(shape.m, shape.n, shape.k, a.pointer, transposeA: transposes.a, b.pointer, transposeB: transposes.b,
                 viaKernel.pointer, beta: beta, packing: packing.pointer)
            gemm(shape.m, shape.n, shape.k, a.pointer, transposeA: transposes.a, b.pointer, transposeB: transposes.b,
                 viaOpenBLAS.pointer, beta: beta)
            for (kernel, openBLAS) in zip(viaKernel.array, viaOpenBLAS.array) {
                #expect(abs(kernel - openBLAS) <= 1e-5 * Float(shape.k))
            }
        }
    }

    /// A factor packed once serves several products.
    @Test(.enabled(if: PackedFactor.kernelIsAvailable))
    func packedOnceUsedTwice() {
        let b = Floats(random: 40 * 50, seed: 33), first = Floats(random: 9 * 40, seed: 34), second = Floats(random: 5 * 40, seed: 35)
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
