import Foundation
import GestureCore
import GestureLearning
import GestureLive
import GestureMotion
import GestureTestSupport
import Testing

@testable import GestureInterop

/// The exported C library, compiled by the real C compiler with every warning an error, and fed
/// the same windows and samples as GestureLab.
@Suite struct CLibraryTests {
    /// Writes and compiles the library of `model`; the path of the test program.
    private func compile(_ library: CLibrary, in folder: TemporaryFolder) throws -> String {
        let path = folder.path.string
        try library.header.write(toFile: "\(path)/\(CLibrary.headerName)", atomically: true, encoding: .utf8)
        try library.source.write(toFile: "\(path)/\(CLibrary.sourceName)", atomically: true, encoding: .utf8)
        try CLibrary.checkProgram.write(toFile: "\(path)/main.c", atomically: true, encoding: .utf8)
        let result = try runGesture(
            [
                "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "main.c", CLibrary.sourceName, "-lm",
                "-o", "program",
            ], in: folder.path, executable: "/usr/bin/cc")
        #expect(result.status == 0, "\(result.error)")
        return "\(path)/program"
    }

    /// Runs the program with `input` on standard input; its lines.
    private func run(_ program: String, input: String, in folder: TemporaryFolder) throws -> [Substring] {
        let inputPath = folder.path.appending("input.txt").string
        try input.write(toFile: inputPath, atomically: true, encoding: .utf8)
        let result = try runGesture(
            [], in: folder.path, shell: "exec < '\(inputPath)'", executable: program
        ).succeeded()
        return result.output.split(separator: "\n")
    }

    private func probabilities(_ lines: [Substring]) -> [[Float]] {
        lines.filter { !$0.hasPrefix("sizes") }.map { $0.split(separator: " ").compactMap { Float($0) } }
    }

    @Test(arguments: [CLibrary.Weights.float32, .int8])
    func theLibraryPredictsWhatGestureLabPredicts(weights: CLibrary.Weights) throws {
        let folder = try TemporaryFolder()
        let library = try CLibrary(model: interopModel, weights: weights)
        let program = try compile(library, in: folder)
        let expected = stream(of: interopModel, windows: 200)
        let input =
            "windows \(expected.windows.count)\n"
            + expected.windows.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n")
        let lines = try run(program, input: input, in: folder)
        let computed = probabilities(lines)
        #expect(computed.count == expected.probabilities.count)
        let sizes = try #require(lines.last.flatMap { Int($0.split(separator: " ")[1]) })
        #expect(sizes <= library.ramBytes)
        switch weights {
        case .float32:
            let difference = zip(computed.joined(), expected.probabilities.joined()).map { abs($0 - $1) }.max()!
            #expect(difference <= 1e-5)
        case .int8:
            let same = zip(computed, expected.probabilities).filter { argmax($0[...]) == argmax($1[...]) }.count
            print("int8: the same class as GestureLab on \(same) of \(computed.count) windows")
            #expect(Double(same) >= 0.99 * Double(computed.count), "\(same) of \(computed.count)")
        }
    }

    @Test func theDetectorFindsWhatGestureLabsDetectorFinds() throws {
        let settings = DetectionSettings(offset: 5, threshold: 0.4, cooldown: 1.5, averaging: 2, rest: "rest")
        let folder = try TemporaryFolder()
        let program = try compile(try CLibrary(model: interopModel, weights: .float32, settings: settings), in: folder)
        // Sessions of each class, one after another, at 25 Hz: the model learned them a little.
        let sessions = SyntheticSessions(sessions: 6, totalSamples: 1_800, featureCount: 6, classCount: 3, seed: 9)
            .make()
        var samples: [[Float]] = []
        for session in sessions {
            for index in 0..<session.sampleCount {
                var sample = Array(session.features[index * 6..<(index + 1) * 6])
                for feature in 0..<6 { sample[feature] = sample[feature] * Float(1 + feature) + Float(feature) - 2 }
                samples.append(sample)
            }
        }
        var detector = StreamingDetector(
            classifier: StreamingClassifier(model: interopModel), window: 20, featureCount: 6, settings: settings)
        var expected: [String] = []
        for (index, sample) in samples.enumerated() {
            let time = Double(index) / 25
            guard let prediction = detector.add(sample, at: time) else { continue }
            let detected = detector.detection(prediction) != nil
            expected.append("\(prediction.gesture) \(detected ? 1 : 0)")
        }
        let lines: [String] = samples.indices.map { index in
            let values: [String] = samples[index].map { "\($0)" }
            return "\(Double(index) / 25) " + values.joined(separator: " ")
        }
        let input = "samples \(samples.count)\n" + lines.joined(separator: "\n")
        let computed = try run(program, input: input, in: folder).filter { !$0.hasPrefix("sizes") }
            .map { line in line.split(separator: " ")[1...2].joined(separator: " ") }
        #expect(computed == expected)
        #expect(
            expected.filter { $0.hasSuffix(" 1") }.count >= 3, "the stream has detections to compare: \(Set(expected))")
    }

    @Test func int8TakesAQuarterOfTheFlash() throws {
        let float32 = try CLibrary(model: interopModel, weights: .float32)
        let int8 = try CLibrary(model: interopModel, weights: .int8)
        #expect(int8.flashBytes < float32.flashBytes / 2)
        #expect(throws: InteropError.self) {
            try CLibrary(model: interopModel, weights: .int8, settings: DetectionSettings(offset: 3))
        }
    }
}

private func argmax(_ values: ArraySlice<Float>) -> Int {
    values.indices.max { values[$0] < values[$1] }! - values.startIndex
}
