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

    /// The VM test's 52.7 Hz take: frames delivered up to 200 ms late, or the first one late and
    /// the rest on time, used to anchor the clock again and again, moving times back and forth.
    @Test func deliveryDelaysKeepTheDevicesIntervals() {
        var clock = DeviceClock()
        let delays = [0.06, 0, 0.2, 0.01, 0, 0.12, 0.003, 0]
        let times = delays.enumerated().map { k, delay in
            clock.time(of: UInt32(k * 20_000), arrivedAt: 5 + Double(k) * 0.02 + delay)
        }
        #expect(zip(times, delays.indices).allSatisfy { abs($0 - (5.06 + Double($1) * 0.02)) < 1e-9 })
    }

    @Test func aDisagreementOfMoreThanASecondAnchorsAgain() {
        var clock = DeviceClock()
        _ = clock.time(of: 0, arrivedAt: 1)
        #expect(abs(clock.time(of: 20_000, arrivedAt: 1.9) - 1.02) < 1e-9)
        #expect(clock.time(of: 40_000, arrivedAt: 2.5) == 2.5)
        #expect(abs(clock.time(of: 60_000, arrivedAt: 2.52) - 2.52) < 1e-9)
    }
}

@Suite struct ScanClockTests {
    @Test func theKernelsStampsAreKeptAsTheyAre() {
        var clock = ScanClock()
        #expect(clock.time(of: 100.000_1, arrivedAt: 100.004) == 100.000_1)
        #expect(clock.time(of: 100.020_1, arrivedAt: 101.3) == 100.020_1)
    }

    /// A HID sensor hub's clock began at its own start: its scans keep its intervals from the
    /// time the first arrived, however late each of the others arrives.
    @Test func aHubsOwnClockIsAnchoredWhereItsFirstScanArrived() {
        var clock = ScanClock()
        let arrivals = [250.01, 250.035, 250.3, 250.07]
        let times = arrivals.enumerated().map { k, arrival in clock.time(of: 3 + Double(k) * 0.02, arrivedAt: arrival) }
        #expect(zip(times, arrivals.indices).allSatisfy { abs($0 - (250.01 + Double($1) * 0.02)) < 1e-9 })
    }
}
