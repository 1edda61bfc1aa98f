import Testing

@testable import GestureLearning

/// The classes a model takes for others, over one fold's seeds together.
@Suite struct MistakeTests {
    private let classes = ["ABD", "FEL", "IR", "ER"]
    private let abd = 0, fel = 1, ir = 2, er = 3

    /// One session's windows: 10 of each class in turn, predicted as `predict` says.
    private func evaluation(_ predict: (_ target: Int, _ window: Int) -> Int) throws -> Evaluation {
        let targets = classes.indices.flatMap { Array(repeating: $0, count: 10) }
        let predictions = targets.enumerated().map { predict($1, $0 % 10) }
        return Evaluation(
            classNames: classes, sequences: [try sequence(targets)], targets: [targets], predictions: [predictions])
    }

    @Test func mistakesAreSummedOverEvaluationsAndRankedByTheirShareOfTheTarget() throws {
        let first = try evaluation { target, window in
            target == self.abd && window < 4 ? self.fel : target == self.er && window < 2 ? self.ir : target
        }
        let second = try evaluation { target, window in
            target == self.abd && window < 1 ? self.ir : target == self.er && window < 4 ? self.ir : target
        }
        let mistakes = Evaluation.largestMistakes(of: [first, second], count: 3)
        #expect(
            mistakes == [
                Mistake(target: "ER", predicted: "IR", windows: 6, share: 0.3),
                Mistake(target: "ABD", predicted: "FEL", windows: 4, share: 0.2),
                Mistake(target: "ABD", predicted: "IR", windows: 1, share: 0.05),
            ])
        #expect(mistakes.listed == "ER as IR 30 %, ABD as FEL 20 %, ABD as IR 5 %")
        #expect(Evaluation.largestMistakes(of: [first, second], count: 1).count == 1)
    }

    @Test func equalSharesKeepTheClassOrder() throws {
        let swapped = try evaluation { target, window in
            window == 0 ? (target == self.ir ? self.er : target == self.er ? self.ir : target) : target
        }
        #expect(
            Evaluation.largestMistakes(of: [swapped], count: 3).map(\.description) == [
                "IR as ER 10 %", "ER as IR 10 %",
            ])
    }

    @Test func aPerfectModelMakesNoMistakes() throws {
        let perfect = try evaluation { target, _ in target }
        #expect(Evaluation.largestMistakes(of: [perfect], count: 3).isEmpty)
        #expect(Evaluation.largestMistakes(of: [perfect], count: 3).listed == "none")
        #expect(Evaluation.largestMistakes(of: [], count: 3).isEmpty)
    }
}
