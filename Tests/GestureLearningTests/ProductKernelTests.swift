import Foundation
import GestureTargets
import GestureTestSupport
import Testing

@testable import GestureLearning

@Suite struct ProductKernelTests {
    /// A seeded model of the book's sizes (window 20 × 6 features, 64 filters, LSTM 200, dense 128) streams
    /// the windows of a synthetic session on each kernel set this CPU runs: every probability within 1e-5
    /// of the offline pass's, whose products multiply Floats, and so the same class wherever the top two
    /// are further apart than that.
    @Test(arguments: ProductKernels.available)
    func everyKernelSetPredictsAsTheFloatProducts(kernels: ProductKernels) {
        let sessions = SyntheticSessions(sessions: 2, totalSamples: 2000, featureCount: 6, classCount: 4).make()
        let description = ModelDescription(
            featureNames: (1...6).map { "f\($0)" }, windowing: Windowing(window: 20), samplingRate: 25,
            classNames: (1...4).map { "class\($0)" })
        let model = GestureModel(
            untrained: description, normalization: FeatureNormalization(fitting: sessions), seed: 3)
        let session = sessions[0], windowSize = 20 * 6
        let offline = model.predict([session])[0]
        let classifier = StreamingClassifier(model: model, kernels: kernels)
        var state = classifier.initialState
        let windows = model.windowing.windowCount(samples: session.sampleCount)
        #expect(windows > model.windowing.windowsPerChunk, "the state is carried past a training chunk")
        for window in 0..<windows {
            let streamed = classifier.step(
                Array(session.features[window * windowSize..<(window + 1) * windowSize]), state: &state)
            let reference = Array(offline[window * 4..<(window + 1) * 4])
            #expect(zip(streamed, reference).allSatisfy { abs($0 - $1) <= 1e-5 }, "window \(window) on \(kernels)")
            let ranked = reference.sorted(by: >)
            if ranked[0] - ranked[1] > 1e-5 {
                #expect(streamed.firstIndex(of: streamed.max()!) == reference.firstIndex(of: ranked[0]))
            }
        }
    }

    /// The NEON kernel, cross-compiled for aarch64 with the plain C one and a driver and run in QEMU,
    /// computes what the plain C one computes there and the Float product here, but for rounding.
    @Test(.enabled(if: CTarget.aarch64.isInstalled, Comment(rawValue: CTarget.aarch64.missing)))
    func onAarch64TheNEONKernelComputesWhatPlainCComputes() throws {
        let folder = try TemporaryFolder(), path = folder.path.string
        let kernels = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/CLearningKernels")
        for file in ["RowProducts.c", "PairGroups.h", "include/CLearningKernels.h"] {
            let source = kernels.appendingPathComponent(file)
            try FileManager.default.copyItem(
                at: source, to: URL(fileURLWithPath: path).appendingPathComponent(source.lastPathComponent))
        }
        try Self.driver.write(toFile: "\(path)/main.c", atomically: true, encoding: .utf8)
        let program = try CTarget.aarch64.compile(["main.c", "RowProducts.c"], in: path)
        let shapes = [(264, 800), (120, 64), (200, 128), (13, 37), (5, 4), (7, 300), (3, 97)]
        var input = "", references: [[Float]] = []
        for (index, (k, n)) in shapes.enumerated() {
            let matrix = Floats(random: k * n, seed: 60 + UInt64(index)).array.map(\.roundedToBFloat16)
            let x = Floats(random: k, seed: 70 + UInt64(index)), start = Floats(random: n, seed: 80)
            let adding = index % 2 == 1
            let reference = Floats(start.array)
            gemm(1, n, k, x.pointer, matrix, reference.pointer, beta: adding ? 1 : 0)
            references.append(reference.array)
            input +=
                "\(k) \(n) \(adding ? 1 : 0)\n"
                + (matrix + x.array + start.array).map { "\($0)" }.joined(separator: " ")
            input += "\n"
        }
        try input.write(toFile: "\(path)/input.txt", atomically: true, encoding: .utf8)
        let lines = try CTarget.aarch64.run(program, input: "\(path)/input.txt", in: path).split(separator: "\n")
        try #require(lines.count == 2 * shapes.count, "\(lines.prefix(2))")
        for (index, (k, _)) in shapes.enumerated() {
            let neon = lines[2 * index].split(separator: " ").dropFirst().compactMap { Float(String($0)) }
            let plainC = lines[2 * index + 1].split(separator: " ").dropFirst().compactMap { Float(String($0)) }
            #expect(neon.count == references[index].count && plainC.count == neon.count, "shape \(shapes[index])")
            let tolerance = 1e-6 * Float(k)
            #expect(zip(neon, plainC).allSatisfy { abs($0 - $1) <= tolerance }, "shape \(shapes[index])")
            #expect(zip(neon, references[index]).allSatisfy { abs($0 - $1) <= tolerance }, "shape \(shapes[index])")
        }
    }

    /// Reads cases of `k n adding`, then the matrix, x and y's start, until the input ends; prints each
    /// case's y from the NEON kernel, then from the plain C one, as exact hexadecimal floats.
    private static let driver = """
        #include "CLearningKernels.h"

        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>

        static int readFloats(float *values, long count) {
            for (long index = 0; index < count; index++) {
                if (scanf("%f", &values[index]) != 1) return 0;
            }
            return 1;
        }

        static void print(const char *name, const float *y, int n) {
            printf("%s", name);
            for (int index = 0; index < n; index++) printf(" %a", y[index]);
            printf("\\n");
        }

        int main(void) {
            int k, n, adding;
            while (scanf("%d %d %d", &k, &n, &adding) == 3) {
                float *w = malloc(sizeof(float) * k * n), *x = malloc(sizeof(float) * k);
                float *start = malloc(sizeof(float) * n), *neon = malloc(sizeof(float) * n);
                float *plain = malloc(sizeof(float) * n);
                uint32_t *packed = malloc(sizeof(uint32_t) * gl_bfloat16_pair_count(k, n));
                if (!readFloats(w, (long)k * n) || !readFloats(x, k) || !readFloats(start, n)) return 1;
                gl_pack_bfloat16_pairs(w, k, n, packed);
                memcpy(neon, start, sizeof(float) * n);
                memcpy(plain, start, sizeof(float) * n);
                gl_row_times_bfloat16_pairs_neon(k, n, x, packed, neon, adding);
                gl_row_times_bfloat16_pairs_portable(k, n, x, packed, plain, adding);
                print("neon", neon, n);
                print("c", plain, n);
                free(w), free(x), free(start), free(neon), free(plain), free(packed);
            }
            return 0;
        }
        """
}
