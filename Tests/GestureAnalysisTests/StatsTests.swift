import GestureAnalysis
import GestureCore
import GestureTestSupport
import Testing

@Suite struct StatsTests {
    @Test func countTableTotalsAndFeatureFiguresMatchTheData() throws {
        var sessions = try syntheticDataset().filter { $0.user.rawValue != "cy" || $0.gesture.rawValue == "wave" }
        sessions[0].rows[3].motion.gravity.y = .nan
        let stats = DatasetStats(Dataset(sessions: sessions))

        #expect(stats.users == ["ann", "bob", "cy"])
        #expect(stats.count(gesture: "twist", user: "ann") == 4)
        #expect(stats.count(gesture: "twist", user: "cy") == 0)
        #expect(stats.count(gesture: "wave", user: "cy") == 4)
        let twist = try #require(stats.gestureTotals.first { $0.gesture == "twist" })
        #expect(twist.sessions == 8)
        #expect(twist.samples == 8 * 300)
        #expect(abs(twist.seconds - 8 * 299.0 / 50) < 1e-9)
        let annTwist = try #require(stats.cellTotals.first { $0.user == "ann" && $0.gesture == "twist" })
        #expect(annTwist.sessions == 4 && annTwist.samples == 4 * 300)
        // Without a requested rate, each session's is its median interval's: 50 Hz, give or take rounding.
        #expect(annTwist.nominalRates.allSatisfy { abs($0 - 50) < 1e-6 })
        #expect(abs(annTwist.seconds - 4 * 299.0 / 50) < 1e-9 && abs(annTwist.achievedRate - 50) < 1e-9)
        #expect(!stats.cellTotals.contains { $0.user == "cy" && $0.gesture == "twist" })
        #expect(stats.cellTotals.map(\.sessions).reduce(0, +) == sessions.count)

        // Gravity is (0, 0.6, 0.8) on every row but the NaN one.
        let gravY = try #require(stats.features.first { $0.feature == "gravY" })
        #expect(gravY.nanCount == 1)
        #expect(gravY.min == 0.6 && gravY.max == 0.6)
        #expect(abs(gravY.mean - 0.6) < 1e-12 && gravY.std < 1e-6)
        #expect(gravY.unit == "g")
        // The wave's rotation about x: amplitude 6/scale, so the largest is 6/1.05 at most.
        let rotX = try #require(stats.features.first { $0.feature == "rotX" })
        let values = sessions.flatMap(\.rows).map(\.motion.rotationRate.x)
        #expect(rotX.max == values.max() && rotX.min == values.min())
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(rotX.mean - mean) < 1e-12)
        #expect(
            abs(rotX.std - (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
                < 1e-9)
    }

    @Test func sessionTimingShowsAchievedRateAndGaps() throws {
        var session = try syntheticSession("s-1", user: "ann", gesture: "wave", motion: wave, rate: 50)
        session.rows.removeSubrange(100..<110)
        let timing = try #require(DatasetStats(Dataset(sessions: [session])).sessions.first).timing
        #expect(abs(timing.nominalRate - 50) < 1e-9)
        #expect(timing.gaps.count == 1)
        #expect(abs(timing.gaps[0].seconds - 0.22) < 1e-9)
        #expect(abs(timing.gaps[0].at - 99 / 50.0) < 1e-9)
        #expect(abs(timing.achievedRate - 289 / (299 / 50.0)) < 1e-9)
        #expect(abs(timing.drift) < 1e-9)
    }
}
