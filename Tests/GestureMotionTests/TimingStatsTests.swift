import GestureMotion
import GestureTestSupport
import Testing

@Suite struct TimingStatsTests {
    @Test func perfectTimingHasNoErrors() {
        // 1/128 s steps are exact in binary, so every interval is exactly the period.
        let times = (0..<1000).map { 5 + Double($0) / 128 }
        let stats = TimingStats(times: times, nominalRate: 128)
        #expect(stats.sampleCount == 1000)
        #expect(stats.achievedRate == 128)
        #expect(stats.rateErrorPPM == 0)
        #expect(stats.p50 == 0)
        #expect(stats.p99 == 0)
        #expect(stats.max == 0)
        #expect(stats.jitter == 0)
    }

    @Test func perfectTimingAt100HzHasOnlyRoundingErrors() {
        let times = (0..<500).map { 1000 + Double($0) / 100 }
        let stats = TimingStats(times: times, nominalRate: 100)
        #expect(abs(stats.rateErrorPPM) < 1e-6)
        #expect(stats.max < 1e-12)
        #expect(stats.jitter < 1e-12)
    }

    @Test func jitteredSequenceHasTheExpectedPercentilesAndRMS() {
        let period = 1.0 / 64
        let errors = [0.001, -0.002, 0.0, 0.0005, -0.0003, 0.0042, -0.0001]
        var times = [10.0]
        for e in errors { times.append(times.last! + period + e) }
        let stats = TimingStats(times: times, nominalRate: 64)
        // |errors| sorted: 0, 0.0001, 0.0003, 0.0005, 0.001, 0.002, 0.0042: the median is the 4th.
        #expect(abs(stats.p50 - 0.0005) < 1e-12)
        #expect(abs(stats.max - 0.0042) < 1e-12)
        #expect(abs(stats.p99 - 0.0042) < 1e-12)
        let rms = (errors.map { $0 * $0 }.reduce(0, +) / 7).squareRoot()
        #expect(abs(stats.jitter - rms) < 1e-12)
        let span = 7 * period + errors.reduce(0, +)
        #expect(abs(stats.achievedRate - 7 / span) < 1e-9)
    }

    @Test func oneLateSampleInOverAHundredMovesMaxButNotP99() {
        var times = (0...101).map { Double($0) / 64 }
        for k in 51...101 { times[k] += 1.0 / 256 } // interval 50→51 is ~3.9 ms late, the rest exact
        let stats = TimingStats(times: times, nominalRate: 64)
        #expect(stats.p50 == 0)
        #expect(stats.p99 == 0)
        #expect(stats.max == 1.0 / 256)
    }

    @Test func uniformlySlowClockShowsANegativeRateError() {
        let slowPeriod = 0.01 * 1.0001
        let times = (0...1000).map { Double($0) * slowPeriod }
        let stats = TimingStats(times: times, nominalRate: 100)
        #expect(abs(stats.rateErrorPPM - (1 / 1.0001 - 1) * 1e6) < 1e-3)
        #expect(abs(stats.p50 - 0.000001) < 1e-12)
    }

    @Test(arguments: [[], [3.0]])
    func fewerThanTwoSamplesGiveZeros(_ times: [Double]) {
        let stats = TimingStats(times: times, nominalRate: 100)
        #expect(stats.sampleCount == times.count)
        #expect(stats.achievedRate == 0)
        #expect(stats.p50 == 0 && stats.p99 == 0 && stats.max == 0 && stats.jitter == 0)
    }
}
