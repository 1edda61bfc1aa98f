import GestureTestSupport
import GestureTraining
import Testing

@testable import GestureLearning

@Suite struct ReportsTests {
    private func epoch(_ number: Int, training: Float, validation: Float?) -> EpochReport {
        EpochReport(
            epoch: number, trainingLoss: training, trainingAccuracy: 0.5, validationLoss: validation,
            validationAccuracy: validation.map { _ in 0.6 }, seconds: 1)
    }

    @Test func theHistoryMarksTheKeptEpochOnBothPanels() throws {
        let history = [
            epoch(1, training: 2, validation: 1.5), epoch(2, training: 1, validation: 0.9),
            epoch(3, training: 0.5, validation: 1.2),
        ]
        let reading = try SVGReading(Reports.historySVG(history, keptEpoch: 2))
        #expect(reading.texts.filter { $0.content == "kept epoch 2" }.count == 2)
        let dashed = reading.named("line").filter { $0.attributes["stroke-dasharray"] != nil }
        let expected = reading.frames.map { $0.minX + (2 - 0.7) / 2.6 * ($0.maxX - $0.minX) }
        #expect(dashed.count == 2 && zip(dashed, expected).allSatisfy { abs($0.number("x1")! - $1) < 0.1 })
        #expect(reading.misplacedTexts == [])
    }

    @Test func anAveragedHistorySaysWhichEpochsWereAveraged() throws {
        let history = (1...4).map { epoch($0, training: 1 / Float($0), validation: nil) }
        let reading = try SVGReading(Reports.historySVG(history, keptEpoch: 4, averagedFrom: 3))
        #expect(reading.texts.filter { $0.content == "mean of epochs 3–4" }.count == 2)
        #expect(!reading.texts.contains { $0.content.hasPrefix("kept epoch") })
        #expect(reading.misplacedTexts == [])
    }

    @Test func aHistoryWithoutAnEpochMarksNone() throws {
        let reading = try SVGReading(Reports.historySVG([], keptEpoch: 0))
        #expect(!reading.texts.contains { $0.content.hasPrefix("kept epoch") })
        #expect(reading.misplacedTexts == [])
    }
}
