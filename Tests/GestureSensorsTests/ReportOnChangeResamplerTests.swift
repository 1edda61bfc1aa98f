import GestureCore
import Testing
@testable import GestureSensors

@Suite struct ReportOnChangeResamplerTests {
    private func frame(_ time: Double, _ x: Double) -> RawSample {
        RawSample(time: time, acceleration: [x, 0, 1], rotationRate: .zero)
    }

    @Test func framesAtTheRateArePassedOnceWithTheirTimestampsDespiteJitter() {
        var resampler = ReportOnChangeResampler(rate: 50)
        let times = [0.0, 0.023, 0.038, 0.061, 0.079, 0.1, 0.128, 0.132, 0.16]
        let out = times.enumerated().flatMap { resampler.frame(frame($1, Double($0))) }
        #expect(out.map(\.time) == times)
        #expect(out.map(\.acceleration.x) == [0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(resampler.heldCount == 0)
    }

    @Test func aQuietDeviceIsHeldOnTheGrid() {
        var resampler = ReportOnChangeResampler(rate: 10)
        _ = resampler.frame(frame(0, 7))
        #expect(resampler.quiet(until: 0.14).isEmpty)
        let held = resampler.quiet(until: 0.36)
        #expect(held.map(\.time) == [0.1, 0.2, 0.30000000000000004])
        #expect(held.allSatisfy { $0.acceleration.x == 7 })
        // A frame ends the silence, and a late one gets a held tick before it.
        #expect(resampler.frame(frame(0.41, 8)).map(\.time) == [0.41])
        #expect(resampler.frame(frame(0.58, 9)).map(\.acceleration.x) == [8, 9])
        #expect(resampler.heldCount == 4)
    }

    /// A frame delivered late, after the silence it seemed to leave was filled, must not put a time
    /// twice or out of order into the recording; its values carry on in what is held.
    @Test func aLateFrameAfterHeldTicksOnlyUpdatesTheHeldValues() {
        var resampler = ReportOnChangeResampler(rate: 50)
        _ = resampler.frame(frame(0, 1))
        _ = resampler.frame(frame(0.02, 2))
        #expect(resampler.quiet(until: 0.1).map(\.time) == [0.04, 0.06, 0.08])
        #expect(resampler.frame(frame(0.06, 3)).isEmpty)
        #expect(resampler.frame(frame(0.08, 4)).isEmpty)
        let held = resampler.quiet(until: 0.125)
        #expect(held.map(\.time) == [0.1] && held.map(\.acceleration.x) == [4])
        #expect(resampler.frame(frame(0.12, 5)).map(\.time) == [0.12])
    }

    @Test func aFasterDeviceIsDecimatedToTheRate() {
        var resampler = ReportOnChangeResampler(rate: 100)
        let out = (0..<250).flatMap { resampler.frame(frame(Double($0) * 0.004, Double($0))) }
        // 250 frames at 250 Hz over one second: about 100 samples, each one of the frames.
        #expect((99...102).contains(out.count), "\(out.count)")
        #expect(out.allSatisfy { $0.time == $0.acceleration.x * 0.004 })
        #expect(zip(out.dropFirst(), out).allSatisfy { $0.time - $1.time < 0.0121 })
    }
}
