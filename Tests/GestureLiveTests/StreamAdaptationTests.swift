import GestureCore
import GestureLearning
import GestureLive
import GestureMotion
import GestureTestSupport
import Testing

/// An untrained model (batch norm's statistics are what adapting changes) over 3 features, windows of 10 samples at 25 Hz.
private let model = GestureModel(
    untrained: ModelDescription(
        featureNames: ["a", "b", "c"], windowing: Windowing(window: 10), samplingRate: 25,
        classNames: ["chop", "rest", "shake"]),
    normalization: FeatureNormalization(mean: [0, 0, 0], deviation: [1, 1, 1]), seed: 3)

/// Windows of 10 samples × 3 features: a person's motion shifted from the model's, or unknown motion.
private func windows(_ count: Int, offset: Float, seed: UInt64) -> [[Float]] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { _ in (0..<30).map { _ in offset + Float(random.uniform(-1...1)) } }
}

private func unlabeled(_ runs: [[[Float]]]) throws -> [LabeledSequence] {
    try runs.enumerated().map { index, run in
        LabeledSequence(
            session: SessionID(rawValue: "run-\(index)"), user: try UserID("u"), featureCount: 3,
            features: run.flatMap { $0 }, labels: Array(repeating: 0, count: run.count * 10))
    }
}

@Suite struct StreamAdaptationTests {
    /// Every 2 s of accepted motion (5 windows) a re-estimate on the accepted windows, as runs
    /// split where unknown motion came between them; the unknown windows never count.
    @Test func itReEstimatesEveryFewAcceptedWindowsOnThemAloneNeverOnUnknownOnes() throws {
        var adaptation = try StreamAdaptation(base: model, every: 2, keeping: 60)
        #expect(adaptation.every == 5)
        let person = windows(7, offset: 0.5, seed: 1), unknown = windows(4, offset: 9, seed: 2)
        var adapted: [Int: GestureModel] = [:]
        let stream = person[..<3].map { ($0, false) } + unknown.map { ($0, true) } + person[3...].map { ($0, false) }
        for (index, (window, isUnknown)) in stream.enumerated() {
            adapted[index] = adaptation.add(window, isUnknown: isUnknown)
        }
        #expect(adapted.keys.sorted() == [8], "the fifth accepted window, after the four unknown ones")
        #expect(adaptation.accepted == 7 && adaptation.unknown == 4 && adaptation.adaptations == 1)
        let expected = try model.adaptingNormalization(to: unlabeled([Array(person[..<3]), Array(person[3..<5])]))
        #expect(adapted[8] == expected)
        let withUnknown = try model.adaptingNormalization(
            to: unlabeled([Array(person[..<3]), unknown, Array(person[3..<5])]))
        #expect(adapted[8] != withUnknown)
        #expect(adapted[8]?.rejection == model.rejection)
    }

    @Test func itKeepsOnlyTheLatestWindowsAndStartsFromTheBaseModelEachTime() throws {
        var adaptation = try StreamAdaptation(base: model, every: 0.4, keeping: 1.2)
        #expect(adaptation.every == 1 && adaptation.capacity == 3)
        let person = windows(6, offset: -0.4, seed: 4)
        let models = person.map { adaptation.add($0, isUnknown: false) }
        #expect(models.allSatisfy { $0 != nil })
        #expect(models.last == (try model.adaptingNormalization(to: unlabeled([Array(person[3...])]))))
    }
}

@Suite struct DetectorReplacingItsClassifierTests {
    /// The latest window and the rejection's verdict are there with `reject` off too, and a new
    /// classifier carries on the slots' states.
    @Test func theLatestWindowCarriesTheVerdictAndANewClassifierTakesOver() throws {
        var detector = StreamingDetector(
            classifier: StreamingClassifier(model: model), window: 10, featureCount: 3,
            settings: DetectionSettings(offset: 5, reject: false))
        let samples = windows(4, offset: 0.5, seed: 6).flatMap { window in
            (0..<10).map { Array(window[$0 * 3..<$0 * 3 + 3]) }
        }
        var reference = detector
        for (index, sample) in samples[..<20].enumerated() {
            _ = detector.add(sample, at: Double(index))
            _ = reference.add(sample, at: Double(index))
        }
        let latest = try #require(detector.latest)
        #expect(latest.window == samples[10..<20].flatMap { $0 } && latest.slot == 0 && !latest.isUnknown)
        let adapted = try model.adaptingNormalization(to: unlabeled([windows(4, offset: 0.5, seed: 6)]))
        detector.replaceClassifier(with: StreamingClassifier(model: adapted))
        var next: [[Float]] = [], before: [[Float]] = []
        for (index, sample) in samples[20...].enumerated() {
            if let prediction = detector.add(sample, at: Double(20 + index)) { next.append(prediction.probabilities) }
            if let prediction = reference.add(sample, at: Double(20 + index)) {
                before.append(prediction.probabilities)
            }
        }
        #expect(next.count == 4 && next.count == before.count && next != before)
    }
}
