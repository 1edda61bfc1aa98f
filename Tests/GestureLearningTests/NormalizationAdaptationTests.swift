import GestureCore
import Testing

@testable import GestureLearning

/// A trained model with a rejection, to adapt on a new person's sessions, their labels ignored.
private let trained = try! trainSmallModel(epochs: 2).calibratingRejection(on: smallSessions)
/// Another person's sessions: each feature shifted by a constant, labels that are not the model's.
private let shifted = smallSessions.map { sequence in
    var copy = sequence
    copy.features = sequence.features.map { $0 + 0.75 }
    copy.labels = sequence.labels.map { $0 + 5 }
    return copy
}

@Suite struct NormalizationAdaptationTests {
    private var runningMean: Range<Int> { trained.network.layout.batchNorm.runningMean }
    private var runningVariance: Range<Int> { trained.network.layout.batchNorm.runningVariance }

    /// The parameters but batch norm's running statistics.
    private func others(_ model: GestureModel) -> [Float] {
        Array(model.parameters[..<runningMean.lowerBound]) + model.parameters[runningVariance.upperBound...]
    }

    @Test func theRunningStatisticsBecomeTheNewWindowsDenseStatisticsAndNothingElseChanges() throws {
        #expect(runningMean.upperBound == runningVariance.lowerBound)
        let adapted = try trained.adaptingNormalization(to: shifted)
        let statistics = trained.denseStatistics(of: shifted)
        #expect(
            statistics.windows
                == smallSessions.map { trained.windowing.windowCount(samples: $0.sampleCount) }.reduce(0, +))
        #expect(Array(adapted.parameters[runningMean]) == statistics.mean)
        #expect(Array(adapted.parameters[runningVariance]) == statistics.variance)
        #expect(Array(adapted.parameters[runningMean]) != Array(trained.parameters[runningMean]))
        #expect(others(adapted) == others(trained), "weights bit-identical")
        #expect(adapted.rejection != nil && adapted.rejection == trained.rejection)
        #expect(adapted.classNames == trained.classNames && adapted.personalization == nil)
    }

    /// Dense's outputs moved by a constant (its bias, as a person whose activations sit elsewhere)
    /// move the adapted mean by that constant and leave the variance.
    @Test func aConstantShiftOfDenseOutputsShiftsTheMeanByItAndKeepsTheVariance() throws {
        var moved = trained
        let bias = trained.network.layout.dense.bias
        let shift = (0..<bias.count).map { Float($0 % 5) - 2 }
        for (index, amount) in zip(bias, shift) { moved.parameters[index] += amount }
        let before = try trained.adaptingNormalization(to: shifted),
            after = try moved.adaptingNormalization(to: shifted)
        for unit in 0..<shift.count {
            let mean = runningMean.lowerBound + unit, variance = runningVariance.lowerBound + unit
            #expect(abs(after.parameters[mean] - before.parameters[mean] - shift[unit]) < 1e-4)
            #expect(
                abs(after.parameters[variance] - before.parameters[variance]) <= 1e-3 * before.parameters[variance]
                    + 1e-6)
        }
    }

    @Test func aWeightBlendsTheTrainedAndTheNewStatistics() throws {
        #expect(try trained.adaptingNormalization(to: shifted, weight: 0) == trained)
        let full = try trained.adaptingNormalization(to: shifted),
            half = try trained.adaptingNormalization(
                to: shifted, weight: 0.5)
        for index in runningMean.lowerBound..<runningVariance.upperBound {
            let expected = (trained.parameters[index] + full.parameters[index]) / 2
            #expect(abs(half.parameters[index] - expected) <= 1e-5 * max(abs(expected), 1))
        }
    }

    @Test func sessionsWithoutAWindowAreRefused() {
        let empty = LabeledSequence(
            session: smallSessions[0].session, user: smallSessions[0].user, featureCount: 3, features: [], labels: [])
        #expect(throws: TrainingError.self) { try trained.adaptingNormalization(to: [empty]) }
    }

    @Test func thePersonalizerRecordsWhoseItIsWithoutTakes() throws {
        let pat = try UserID("pat")
        let model = try Personalizer(base: trained, baseName: "base.model", classNames: trained.classNames)
            .adaptingNormalization(shifted, user: pat)
        let record = try #require(model.personalization)
        #expect(record.method == .unlabeled && record.user == pat && record.takes.isEmpty)
        #expect(model.rejection == trained.rejection)
        #expect(try GestureModel(serialized: model.serialized()) == model)
    }
}
