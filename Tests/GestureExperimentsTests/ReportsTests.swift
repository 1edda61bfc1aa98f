import GestureExperiments
import GestureLearning
import Testing

@Suite struct ReportsTests {
    private let history = (1...5).map { epoch in
        EpochReport(
            epoch: epoch, trainingLoss: Float(1) / Float(epoch), trainingAccuracy: 0.5 + Double(epoch) / 20,
            validationLoss: epoch == 3 ? 0.2 : 0.4, validationAccuracy: 0.6, seconds: 1)
    }

    /// The kept epoch is a line in both panels, named in their legends.
    @Test func theHistoryMarksTheKeptEpoch() {
        let svg = Reports.historySVG(history, kept: 3)
        #expect(svg.components(separatedBy: ">kept epoch 3<").count == 3)
        let markers = svg.matches(
            of: /<line x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)" y2="[\d.]+" stroke="#555" stroke-width="1.5"\/>/)
        #expect(markers.count == 2)
        #expect(markers.allSatisfy { $0.1 == $0.2 })
        #expect(!Reports.historySVG(history).contains("kept epoch"))
    }
}
