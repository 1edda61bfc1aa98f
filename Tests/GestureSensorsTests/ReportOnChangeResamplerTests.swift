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

    /// A silence is filled when the frame that ends it comes, on the output grid, whatever the clock.
    @Test func aSilenceIsHeldOnTheGridWhenTheFrameEndingItComes() {
        var resampler = ReportOnChangeResampler(rate: 50)
        _ = resampler.frame(frame(0, 1))
        _ = resampler.frame(frame(0.02, 2))
        let out = resampler.frame(frame(0.12, 3))
        #expect(zip(out.map(\.time), [0.04, 0.06, 0.08, 0.1, 0.12]).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(out.map(\.acceleration.x) == [2, 2, 2, 2, 3])
        #expect(resampler.heldCount == 4 && resampler.lateFrames == 0)
    }

    /// The loss the VM test saw: the clock said the device had been quiet for a period and a half,
    /// the silence was filled, and the frame that had been on its way came after the fill.
    @Test func aFrameDeliveredAfterTheClockPassedItsTickIsStillOutput() {
        var resampler = ReportOnChangeResampler(rate: 50)
        _ = resampler.frame(frame(0, 1))
        _ = resampler.frame(frame(0.02, 2))
        #expect(resampler.quiet(until: 0.1).isEmpty)
        #expect(resampler.frame(frame(0.04, 3)).map(\.time) == [0.04])
        #expect(resampler.frame(frame(0.06, 4)).map(\.time) == [0.06])
        #expect(resampler.heldCount == 0 && resampler.lateFrames == 0)
    }

    /// A device that stays quiet is held from the clock, up to the delivery allowance before now.
    @Test func aQuietDeviceIsHeldFromTheClockAfterTheDeliveryAllowance() {
        var resampler = ReportOnChangeResampler(rate: 10)
        _ = resampler.frame(frame(0, 7))
        #expect(resampler.quiet(until: 0.14 + DeliveryDelay.allowance).isEmpty)
        let held = resampler.quiet(until: 0.36 + DeliveryDelay.allowance)
        #expect(held.map(\.time) == [0.1, 0.2, 0.30000000000000004])
        #expect(held.allSatisfy { $0.acceleration.x == 7 })
        #expect(resampler.frame(frame(0.41, 8)).map(\.time) == [0.41])
        #expect(resampler.frame(frame(0.58, 9)).map(\.acceleration.x) == [8, 9])
        #expect(resampler.heldCount == 4)
    }

    /// A phone's batch, a network's hiccup late, still takes its place where an input device's
    /// frame would be lost.
    @Test func aPhonesBatchMayComeLaterThanAnInputDevicesFrame() {
        var phone = ReportOnChangeResampler(rate: 50, allowance: DeliveryDelay.overNetwork)
        var device = ReportOnChangeResampler(rate: 50)
        _ = phone.frame(frame(0, 1))
        _ = device.frame(frame(0, 1))
        #expect(phone.quiet(until: 0.6).isEmpty)
        #expect(!device.quiet(until: 0.6).isEmpty)
        #expect(phone.frame(frame(0.02, 2)).map(\.acceleration.x) == [2])
        #expect(device.frame(frame(0.02, 2)).isEmpty && device.lateFrames == 1)
        #expect(phone.lateFrames == 0 && phone.heldCount == 0)
    }

    /// A frame later than the allowance finds its time already output: it is counted, its values
    /// are held, and no time repeats or goes back.
    @Test func aFrameLaterThanTheAllowanceIsCountedAndItsValuesHeld() {
        var resampler = ReportOnChangeResampler(rate: 50)
        _ = resampler.frame(frame(0, 1))
        _ = resampler.frame(frame(0.02, 2))
        let filled = resampler.quiet(until: 0.1 + DeliveryDelay.allowance)
        #expect(filled.map(\.time).last.map { abs($0 - 0.08) < 1e-12 } == true)
        #expect(resampler.frame(frame(0.06, 3)).isEmpty)
        #expect(resampler.lateFrames == 1)
        let next = resampler.frame(frame(0.12, 4))
        #expect(next.map(\.acceleration.x) == [3, 4])
        #expect(zip(next.dropFirst(), next).allSatisfy { $0.time > $1.time })
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
