import Testing
@testable import GestureLearning

@Suite struct RepeatedFactorTests {
    /// Shapes that leave partial panels and partial row blocks, both ways round.
    @Test(.enabled(if: RepeatedFactor.kernelIsAvailable), arguments: [(11, 37, 13), (8, 32, 5), (3, 70, 40), (17, 200, 800)],
          [false, true])
    func packedKernelAgreesWithOpenBLAS(shape: (rows: Int, n: Int, k: Int), transposed: Bool) {
        let a = Floats(random: shape.rows * shape.k, seed: 30), b = Floats(random: shape.k * shape.n, seed: 31)
        let start = Floats(random: shape.rows * shape.n, seed: 32)
        let packed = Floats(zeros: RepeatedFactor.packedCount(k: shape.k, n: shape.n))
        let viaKernel = Floats(start.array), viaOpenBLAS = Floats(start.array)
        RepeatedFactor(b.pointer, k: shape.k, n: shape.n, transposed: transposed, packingInto: packed.pointer)
            .multiplyAdd(a.pointer, rows: shape.rows, into: viaKernel.pointer)
        RepeatedFactor(b.pointer, k: shape.k, n: shape.n, transposed: transposed, packingInto: nil)
            .multiplyAdd(a.pointer, rows: shape.rows, into: viaOpenBLAS.pointer)
        for (kernel, openBLAS) in zip(viaKernel.array, viaOpenBLAS.array) {
            #expect(abs(kernel - openBLAS) <= 1e-5 * Float(shape.k))
        }
    }
}
