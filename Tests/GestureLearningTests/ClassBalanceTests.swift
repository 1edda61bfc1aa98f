import GestureCore
import Glibc
import Testing

@testable import GestureLearning

@Suite struct ClassBalanceTests {
    /// Three classes of equal shares, the second's windows taken for the first (0.58 against 0.4):
    /// balanced, each class's mean probability is its share and every window's top class its own.
    @Test func aClassSeenTooOftenGivesWayToTheOneItIsTakenFor() {
        let rows: [[Float]] = [[0.88, 0.1, 0.02], [0.58, 0.4, 0.02], [0.02, 0.02, 0.96]]
        let part = Array((0..<10).flatMap { _ in rows }.joined())
        let topClasses = { (shifts: [Double]) in
            rows.map { row in
                let shifted = zip(row, shifts).map { Double($0) * exp($1) }
                return shifted.indices.max { shifted[$0] < shifted[$1] }!
            }
        }
        #expect(topClasses([0, 0, 0]) == [0, 0, 2])
        let balance = ClassBalance(fitting: [part], toShares: [1.0 / 3, 1.0 / 3, 1.0 / 3], classCount: 3)
        for mean in ClassBalance.meanProbabilities([part], shifts: balance.logitShifts, classCount: 3) {
            #expect(abs(mean - 1.0 / 3) < 1e-3)
        }
        #expect(topClasses(balance.logitShifts) == [0, 1, 2])
        #expect(balance.doubtfulClasses.isEmpty)
    }

    /// A class the windows never show (as a gesture a person never made) moves only as far as
    /// balancing moves a class.
    @Test func aClassTheWindowsDoNotShowMovesNoFartherThanTheLimit() {
        let part: [Float] = Array((0..<20).flatMap { _ in [0.7, 0.2999, 0.0001] })
        let balance = ClassBalance(fitting: [part], toShares: [0.4, 0.4, 0.2], classCount: 3)
        #expect(balance.logitShifts[2] == ClassBalance.largestShift)
        #expect(balance.logitShifts.allSatisfy { abs($0) <= ClassBalance.largestShift })
        #expect(balance.doubtfulClasses == [2])
    }

    /// Training records each class's share of its windows; a model balanced over sessions then
    /// predicts, on average over their windows, those shares, its output bias alone changed.
    @Test func aBalancedModelsMeanProbabilitiesAreItsTrainingShares() throws {
        let model = try trainSmallModel()
        let shares = try #require(model.trainingRecord?.classShares)
        let labels = smallSessions.flatMap { model.windowing.windowLabels($0.labels, classCount: 2) }
        #expect(shares == [0, 1].map { label in Double(labels.count { $0 == label }) / Double(labels.count) })
        let skewed = smallSessions.filter { $0.labels.count { $0 == 1 } * 2 > $0.labels.count } + smallSessions
        #expect(skewed.count > smallSessions.count)
        let (balanced, balance) = try model.balancingClasses(over: skewed)
        let means = meanProbabilities(balanced.predict(skewed), classCount: 2)
        for (mean, share) in zip(means, shares) { #expect(abs(mean - share) < 0.01, "\(means) \(shares)") }
        let bias = model.network.layout.output.bias
        let changed = model.parameters.indices.filter { model.parameters[$0] != balanced.parameters[$0] }
        #expect(!changed.isEmpty && changed.allSatisfy(bias.contains))
        #expect(balance.logitShifts[1] < balance.logitShifts[0], "the sessions hold class 1 more than training did")
    }

    @Test func aModelWithoutItsClassesSharesIsRefused() throws {
        var model = try trainSmallModel()
        model.trainingRecord?.classShares = [1]
        #expect(throws: TrainingError.self) { try model.balancingClasses(over: smallSessions) }
        model.trainingRecord?.classShares = nil
        #expect(throws: TrainingError.self) { try model.balancingClasses(over: smallSessions) }
    }

    /// The personalizer records the shifts, and the model file keeps them and the shares.
    @Test func theShiftsAndSharesSurviveTheModelFile() throws {
        let model = try trainSmallModel()
        let balanced = try Personalizer(base: model, baseName: "base.model", classNames: model.classNames)
            .adaptingNormalization(smallSessions, user: try UserID("pat"), balancingClasses: true)
        #expect(balanced.personalization?.classShifts?.count == 2)
        let read = try GestureModel(serialized: balanced.serialized())
        #expect(read == balanced && read.trainingRecord?.classShares == model.trainingRecord?.classShares)
    }
}

/// Each class's mean probability over every window of `predictions` (one `predict` result).
func meanProbabilities(_ predictions: [[Float]], classCount: Int) -> [Double] {
    let rows = predictions.joined()
    var sums = [Double](repeating: 0, count: classCount)
    for (index, value) in rows.enumerated() { sums[index % classCount] += Double(value) }
    return sums.map { $0 / Double(rows.count / classCount) }
}
