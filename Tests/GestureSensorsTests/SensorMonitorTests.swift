import GestureCore
import GestureSensors
import Testing

/// Readings at `rate` Hz from `start`, lying still with gravity along `up`.
private func still(
    _ count: Int, rate: Double = 100, from start: Double = 0, up: Vector3 = [0, 0, 1]
) -> [SensorReading] {
    (0..<count).map { k in
        let wobble = Double(k % 7) * 1e-4
        return SensorReading(
            sample: RawSample(
                time: start + Double(k) / rate, acceleration: up + [wobble, 0, 0], rotationRate: [0, wobble, 0]))
    }
}

@Suite struct SensorMonitorTests {
    @Test func theAchievedRateIsOverTheLastSecond() throws {
        var monitor = SensorMonitor(rate: 100, range: nil)
        monitor.add(still(1, rate: 100))
        #expect(monitor.latest?.achievedRate == nil)
        monitor.add(still(200, rate: 100).dropFirst())
        #expect(try #require(monitor.latest?.achievedRate).isApproximately(100, tolerance: 0.5))
        // The device slows to 40 Hz: a second later, the rate says so.
        monitor.add(still(41, rate: 40, from: 2))
        #expect(try #require(monitor.latest?.achievedRate).isApproximately(40, tolerance: 0.5))
        #expect(monitor.latest?.counts.readings == 241)
    }

    @Test func lostHeldAndClippedReadingsAreCounted() {
        let range = SensorRange(acceleration: 2, rotationRate: 10)
        var monitor = SensorMonitor(rate: 50, range: range)
        var unknownRange = SensorMonitor(rate: 50, range: nil)
        var readings = still(10, rate: 50)
        readings[3].lostBefore = 2
        readings[8].lostBefore = 5
        // Readings 5 and 6 repeat reading 4 exactly: the device held its value.
        readings[5].sample.acceleration = readings[4].sample.acceleration
        readings[5].sample.rotationRate = readings[4].sample.rotationRate
        readings[6].sample.acceleration = readings[4].sample.acceleration
        readings[6].sample.rotationRate = readings[4].sample.rotationRate
        // At the range on one axis: 2 g less than one 16-bit step, and -10 rad/s.
        readings[7].sample.acceleration.y = 2 * (1 - 1 / 32768)
        readings[9].sample.rotationRate.z = -10
        readings[2].sample.acceleration.y = 1.99
        for reading in readings {
            monitor.add(reading)
            unknownRange.add(reading)
        }
        #expect(monitor.latest?.counts == MonitorSnapshot.Counts(readings: 10, lost: 7, held: 2, clipped: 2))
        #expect(unknownRange.latest?.counts.clipped == 0)
    }

    @Test(arguments: [
        (Vector3(0, 0, 1), "+z", 0.0, 0.0),
        (Vector3(0, 0, -1), "-z", 180.0, 0.0),
        (Vector3(0, 1, 0), "+y", 90.0, 0.0),
        (Vector3(-1, 0, 0), "-x", 0.0, 90.0),
        (Vector3(0.5, 0, 0.866), "+z", 0.0, -30.0),
    ])
    func gravityGivesRollPitchAndTheAxisUp(up: Vector3, axis: String, roll: Double, pitch: Double) throws {
        var monitor = SensorMonitor(rate: 100, range: nil)
        monitor.add(still(100, up: up))
        let snapshot = try #require(monitor.latest)
        #expect(snapshot.upAxis == axis)
        #expect(abs(snapshot.roll * 180 / .pi).isApproximately(abs(roll), tolerance: 0.5))
        #expect((snapshot.pitch * 180 / .pi).isApproximately(pitch, tolerance: 0.5))
    }

    @Test func theDeviceTurningOverShowsWithinASecond() throws {
        var monitor = SensorMonitor(rate: 100, range: nil)
        monitor.add(still(100))
        // Turned face down at once, as a board flipped between two readings.
        monitor.add(still(100, from: 1, up: [0, 0, -1]))
        #expect(try #require(monitor.latest).upAxis == "-z")
    }
}

extension SensorMonitor {
    fileprivate mutating func add(_ readings: some Sequence<SensorReading>) {
        for reading in readings { add(reading) }
    }
}

extension Double {
    fileprivate func isApproximately(_ other: Double, tolerance: Double) -> Bool { abs(self - other) <= tolerance }
}
