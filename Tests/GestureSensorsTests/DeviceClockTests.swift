import Testing
@testable import GestureSensors

@Suite struct DeviceClockTests {
    @Test func theDevicesMicrosecondsRunFromTheFirstFramesKernelTime() {
        var clock = DeviceClock()
        #expect(clock.time(of: 1_000, arrivedAt: 50.003) == 50.003)
        #expect(abs(clock.time(of: 21_000, arrivedAt: 50.0251) - 50.023) < 1e-9)
        #expect(abs(clock.time(of: 41_000, arrivedAt: 50.0442) - 50.043) < 1e-9)
    }

    @Test func theStampWrapsAround() {
        var clock = DeviceClock()
        _ = clock.time(of: UInt32.max - 9_999, arrivedAt: 10)
        #expect(abs(clock.time(of: 10_000, arrivedAt: 10.02) - 10.02) < 1e-9)
    }

    @Test func aDriftOfMoreThan50MillisecondsAnchorsAgain() {
        var clock = DeviceClock()
        _ = clock.time(of: 0, arrivedAt: 1)
        #expect(clock.time(of: 100_000, arrivedAt: 1.5) == 1.5)
        #expect(abs(clock.time(of: 120_000, arrivedAt: 1.52) - 1.52) < 1e-9)
    }
}
