import GestureCore
import GestureLearning
import GestureLive
import GestureMotion
import GestureTestSupport
import Testing

/// The detector's overlapping windows against the model run offline: each window slot is a
/// stream of consecutive windows, and must predict what the model predicts for them in one pass.
@Suite struct StreamingEqualsOfflineTests {
    @Test(arguments: [(0, 1), (8, 1), (8, 3)])
    func everySlotPredictsWhatTheOfflineModelPredictsForItsWindows(temporalFilters: Int, temporalLayers: Int) throws {
        let (window, offset, features) = (20, 5, 6)
        var layers = LayerSizes()
        layers.temporalFilters = temporalFilters
        layers.temporalLayers = temporalLayers
        let model = GestureModel(
            untrained: ModelDescription(
                featureNames: Array(TrainingFeatures.names.prefix(features)), windowing: Windowing(window: window),
                samplingRate: 25, classNames: ["chop", "rest", "shake"], layers: layers),
            normalization: FeatureNormalization(
                mean: Array(repeating: 0.1, count: features), deviation: Array(repeating: 0.8, count: features)),
            seed: 5)
        var random = SeededRandom(seed: 9)
        let samples = (0..<(12 * window)).map { _ in (0..<features).map { _ in Float(random.uniform(-1...1)) } }
        var detector = StreamingDetector(
            classifier: StreamingClassifier(model: model), window: window, featureCount: features,
            settings: DetectionSettings(offset: offset, averaging: 1))
        var streamed: [Int: [[Float]]] = [:]
        for (index, sample) in samples.enumerated() {
            guard let prediction = detector.add(sample, at: Double(index)) else { continue }
            let end = index + 1
            streamed[(end - window) % window, default: []].append(prediction.probabilities)
        }
        for slot in 0..<(window / offset) {
            let start = slot * offset
            let usable = (samples.count - start) / window * window
            let sequence = LabeledSequence(
                session: SessionID(rawValue: "slot-\(slot)"), user: try UserID("u"), featureCount: features,
                features: samples[start..<start + usable].flatMap { $0 }, labels: Array(repeating: 0, count: usable))
            let offline = model.predict([sequence])[0]
            let online = try #require(streamed[start])
            #expect(online.count == usable / window)
            for (index, probabilities) in online.enumerated() {
                let expected = Array(offline[index * 3..<index * 3 + 3])
                #expect(
                    zip(probabilities, expected).allSatisfy { abs($0 - $1) < 1e-5 }, "slot \(slot), window \(index)")
            }
        }
    }
}

private enum TrainingFeatures {
    static let names = ["rotX", "rotY", "rotZ", "accelX", "accelY", "accelZ"]
}
