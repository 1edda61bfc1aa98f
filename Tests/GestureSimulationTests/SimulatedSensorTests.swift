import Foundation
import GestureCore
import GestureSimulation
import GestureTestSupport
import Testing

private var alice: UserID {
    get throws { try UserID("alice") }
}

/// A ten-second session, take 1: rest until go at 2 s, the gesture until stop at 7 s, rest again.
private func performance(_ gesture: ActivityLabel, take: Int = 1) throws -> Performance {
    Performance(user: try alice, gesture: gesture, take: take, sessionStart: 0, sessionEnd: 10, go: 2, stop: 7)
}

private func sensor(
    seed: UInt64 = 1, holder: UserID? = nil, faults: String = "",
    performing gesture: ActivityLabel? = nil
) throws -> SimulatedSensor {
    let sensor = SimulatedSensor(seed: seed, holder: try holder ?? alice, faults: try SimulatedFaults(faults))
    if let gesture { sensor.perform(try performance(gesture)) }
    return sensor
}

/// Reads at 100 Hz over `span`, keeping the time of each read and what it returned.
private func read(_ sensor: SimulatedSensor, _ span: Range<Double>) throws -> [(time: Double, sample: RawSample?)] {
    try (Int((span.lowerBound * 100).rounded())..<Int((span.upperBound * 100).rounded())).map { k in
        let t = Double(k) / 100
        return (t, try sensor.read(now: t))
    }
}

/// The samples read at 100 Hz over `span`, which must all arrive.
private func samples(_ sensor: SimulatedSensor, _ span: Range<Double>) throws -> [RawSample] {
    try read(sensor, span).map { try #require($0.sample) }
}

/// Where the gesture is surely under way (after the slowest reaction) and surely not.
private let during = 3.0..<7.0
private let restBefore = 0.0..<1.9
private let restAfter = 8.6..<10.0

/// The index of the axis with the largest RMS rotation rate.
private func dominantRotationAxis(_ samples: [RawSample]) -> Int {
    let r = (0..<3).map { axis in rms(samples.map { $0.rotationRate[axis] }) }
    return r.indices.max { r[$0] < r[$1] }!
}

@Suite struct SimulatedSensorTests {
    @Test func sameSeedAndHolderReadAtTheSameTimesGiveTheSameSamples() throws {
        let a = try sensor(seed: 42, performing: .shake)
        let b = try sensor(seed: 42, performing: .shake)
        let times = (0..<1200).map { -1 + Double($0) / 100 }
        let fromA = try times.map { try a.read(now: $0) }
        let fromB = try times.map { try b.read(now: $0) }
        #expect(fromA == fromB)
        #expect(fromA.compactMap { $0 }.count == times.count)
    }

    @Test func anotherSeedOrHolderGivesOtherSamples() throws {
        let reference = try samples(sensor(seed: 1, performing: .chop), 0..<10)
        let otherSeed = try samples(sensor(seed: 2, performing: .chop), 0..<10)
        let otherHolder = try samples(sensor(seed: 1, holder: UserID("bob"), performing: .chop), 0..<10)
        #expect(zip(reference, otherSeed).filter { $0 == $1 }.count < 10)
        #expect(zip(reference, otherHolder).filter { $0 == $1 }.count < 10)
    }

    @Test func atRestTheSensorReadsAbout1gAndLittleRotation() throws {
        let rest = try samples(sensor(), 0..<20)
        #expect(rest.map { abs(magnitude($0.acceleration) - 1) }.max()! < 0.05)
        #expect(rest.map { magnitude($0.rotationRate) }.max()! < 0.3)
        #expect(rest.map(\.time) == (0..<2000).map { Double($0) / 100 })
    }

    @Test func readingsAreOn16BitSteps() throws {
        let accelerationStep = SimulatedSensor.accelerationRange / 32768
        let gyroStep = SimulatedSensor.rotationRateRange / 32768
        #expect(accelerationStep == 1.0 / 4096)
        let readings = try samples(sensor(performing: .shake), 0..<10)
        let accelerationCounts = readings.flatMap { s in (0..<3).map { s.acceleration[$0] * 4096 } }
        let gyroCounts = readings.flatMap { s in (0..<3).map { s.rotationRate[$0] / gyroStep } }
        #expect(accelerationCounts.allSatisfy { $0 == $0.rounded() })
        #expect(gyroCounts.map { abs($0 - $0.rounded()) }.max()! < 1e-6)
        // Shaking reaches several g, so the readings span many steps, not just a few.
        #expect(Set(accelerationCounts).count > 1000)
    }

    @Test(arguments: [0, -1, Double.nan, .infinity, 1001])
    func unusableRateIsRejected(_ rate: Double) throws {
        let error = #expect(throws: SensorError.self) { try sensor().start(rate: rate) }
        #expect(error?.device == "sim")
    }

    @Test(arguments: [1, 25, 100, 1000])
    func usableRateIsAccepted(_ rate: Double) throws {
        #expect(try sensor().start(rate: rate) == rate)
    }
}

@Suite struct SimulatedGestureTests {
    @Test func nothingMovesMuchOutsideTheGesture() throws {
        for gesture in [ActivityLabel.shake, .chop, .drive] {
            let s = try sensor(performing: gesture)
            let quiet = try samples(s, restBefore) + samples(s, restAfter) + samples(s, 10..<12) + samples(s, -2..<0)
            #expect(quiet.map { abs(magnitude($0.acceleration) - 1) }.max()! < 0.05, "\(gesture)")
            #expect(quiet.map { magnitude($0.rotationRate) }.max()! < 0.3, "\(gesture)")
        }
    }

    @Test func shakeIsAFastLargeAccelerationAlongX() throws {
        let s = try sensor(performing: .shake)
        let x = try samples(s, during).map(\.acceleration.x)
        let restX = try samples(s, restBefore).map(\.acceleration.x)
        #expect(standardDeviation(x) > 1, "x acceleration deviation \(standardDeviation(x)) g")
        #expect(standardDeviation(restX) < 0.05)
        // 4–5 shakes a second, scaled by the holder's own tempo (the model allows about ±25%).
        let frequency = dominantFrequency(x, rate: 100)
        #expect((3.5...6).contains(frequency), "shaking at \(frequency) Hz")
        let y = try samples(s, during).map(\.acceleration.y)
        #expect(standardDeviation(x) > 3 * standardDeviation(y))
    }

    @Test func chopIsALargeRotationAboutX() throws {
        let during = try samples(sensor(performing: .chop), during)
        #expect(dominantRotationAxis(during) == 0)
        let x = rms(during.map(\.rotationRate.x))
        #expect(x > 2, "RMS rotation about x \(x) rad/s")
        #expect(x > 3 * rms(during.map(\.rotationRate.y)))
        #expect(x > 3 * rms(during.map(\.rotationRate.z)))
        let frequency = dominantFrequency(during.map(\.rotationRate.x), rate: 100)
        #expect((1...3).contains(frequency), "chopping at \(frequency) Hz")
    }

    @Test func driveIsASlowRotationAboutZ() throws {
        let during = try samples(sensor(performing: .drive), during)
        #expect(dominantRotationAxis(during) == 2)
        let z = rms(during.map(\.rotationRate.z))
        #expect(z > 1, "RMS rotation about z \(z) rad/s")
        #expect(z > 3 * rms(during.map(\.rotationRate.x)))
        #expect(z > 3 * rms(during.map(\.rotationRate.y)))
        let frequency = dominantFrequency(during.map(\.rotationRate.z), rate: 100, band: 0.1...5)
        #expect(frequency < 1, "steering at \(frequency) Hz")
        // Turning a wheel moves the device little: the accelerometer still reads about 1 g.
        #expect(during.map { abs(magnitude($0.acceleration) - 1) }.max()! < 0.1)
    }

    @Test func shakeRotatesMostlyAboutY() throws {
        #expect(try dominantRotationAxis(samples(sensor(performing: .shake), during)) == 1)
    }

    @Test func anInventedGestureAlsoMoves() throws {
        let s = try sensor(performing: ActivityLabel("wave"))
        let moving = try samples(s, during)
        #expect(moving.map { magnitude($0.rotationRate) }.max()! > 1)
    }
}

@Suite struct SimulatedFaultTests {
    @Test func upsideDownTurnsGravityOverDuringTheSession() throws {
        let normal = try sensor(performing: .drive)
        let flipped = try sensor(faults: "upside-down@1", performing: .drive)
        let normalZ = try mean(samples(normal, 1..<1.9).map(\.acceleration.z))
        let flippedZ = try mean(samples(flipped, 1..<1.9).map(\.acceleration.z))
        #expect(normalZ > 0.3)
        #expect(flippedZ < -0.3)
        #expect(abs(normalZ + flippedZ) < 0.05)
        // Outside the session the device is held the usual way up.
        let afterZ = try mean(samples(flipped, 11..<12).map(\.acceleration.z))
        #expect(abs(afterZ - normalZ) < 0.05)
    }

    @Test func upsideDownOnlyAffectsTheNamedTake() throws {
        let s = try sensor(faults: "upside-down@2", performing: .drive)
        #expect(try mean(samples(s, 1..<1.9).map(\.acceleration.z)) > 0.3)
    }

    @Test func deadAxisReadsExactlyZeroThroughoutTheSession() throws {
        let s = try sensor(faults: "dead-axis", performing: .shake)
        let inside = try samples(s, 0..<10)
        let dead = (0..<3).filter { axis in inside.allSatisfy { $0.acceleration[axis] == 0 } }
        try #require(dead.count == 1)
        let axis = dead[0]
        let outside = try samples(s, 10..<12)
        #expect(outside.contains { $0.acceleration[axis] != 0 })
        let healthy = try samples(sensor(performing: .shake), 0..<10)
        #expect((0..<3).allSatisfy { axis in healthy.contains { $0.acceleration[axis] != 0 } })
    }

    @Test func droppedSamplesAreMissingOnlyInsideTheSession() throws {
        let s = try sensor(faults: "dropped@1", performing: .chop)
        let reads = try read(s, -2..<12)
        let missing = reads.filter { $0.sample == nil }.map(\.time)
        #expect(missing.count >= 10)
        #expect(missing.allSatisfy { (0..<10).contains($0) })
        #expect(reads.filter { $0.sample != nil }.allSatisfy { $0.sample!.time == $0.time })
        let healthy = try read(sensor(performing: .chop), -2..<12)
        #expect(healthy.allSatisfy { $0.sample != nil })
    }

    @Test func wrongGesturePerformsAnotherGestureThanPrompted() throws {
        let prompted = try samples(sensor(performing: .shake), during)
        let wrong = try samples(sensor(faults: "wrong-gesture", performing: .shake), during)
        #expect(dominantRotationAxis(prompted) == 1) // shake's wrist twist is about y
        #expect(dominantRotationAxis(wrong) != 1) // chop turns about x, drive about z
        #expect(standardDeviation(wrong.map(\.acceleration.x)) < standardDeviation(prompted.map(\.acceleration.x)) / 2)
    }

    @Test func wrongGestureForAnotherTakeLeavesThisOneAlone() throws {
        let prompted = try samples(sensor(performing: .chop), during)
        let other = try samples(sensor(faults: "wrong-gesture@5", performing: .chop), during)
        #expect(prompted == other)
    }
}
