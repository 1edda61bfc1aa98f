/// A device's own clock on the monotonic clock: anchored to the time the first reading arrived, so
/// the readings keep exactly the device's intervals. Delivery delays vary from reading to reading
/// and move nothing; only a disagreement of more than a second with the arrival time, as after a
/// device reset or a long stall, anchors it again.
struct DeviceClock: Sendable {
    static let resetThreshold = 1.0

    private var anchor: (arrival: Double, device: Double)?
    private var microseconds: (last: UInt32, elapsed: UInt64)?

    /// A reading stamped `device` seconds on the device's clock, arrived at `arrival` (monotonic).
    mutating func time(ofDeviceTime device: Double, arrivedAt arrival: Double) -> Double {
        if let anchor, case let time = anchor.arrival + (device - anchor.device),
            abs(time - arrival) <= Self.resetThreshold
        {
            return time
        }
        anchor = (arrival, device)
        return arrival
    }

    /// An input device's MSC_TIMESTAMP: µs, wrapping at 2³².
    mutating func time(of stamp: UInt32, arrivedAt arrival: Double) -> Double {
        let elapsed = microseconds.map { $0.elapsed + UInt64(stamp &- $0.last) } ?? 0
        microseconds = (stamp, elapsed)
        return time(ofDeviceTime: Double(elapsed) * 1e-6, arrivedAt: arrival)
    }
}

/// The times of an IIO device's scans on the monotonic clock. The kernel stamps scans on it (the
/// sensor asks for CLOCK_MONOTONIC), unless the device sends stamps of its own, as a HID sensor hub
/// may: those are told by being more than a second from the time they arrive, and are then
/// anchored like an input device's.
struct ScanClock: Sendable {
    private enum Domain: Sendable {
        case monotonic
        case device(DeviceClock)
    }

    private var domain: Domain?

    mutating func time(of stamp: Double, arrivedAt arrival: Double) -> Double {
        switch domain ?? Self.domain(of: stamp, arrivedAt: arrival) {
        case .monotonic:
            domain = .monotonic
            return stamp
        case .device(var clock):
            let time = clock.time(ofDeviceTime: stamp, arrivedAt: arrival)
            domain = .device(clock)
            return time
        }
    }

    private static func domain(of stamp: Double, arrivedAt arrival: Double) -> Domain {
        abs(stamp - arrival) <= DeviceClock.resetThreshold ? .monotonic : .device(DeviceClock())
    }
}
