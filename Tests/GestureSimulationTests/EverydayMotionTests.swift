import GestureCore
import GestureSimulation
import GestureTestSupport
import Testing

private var eve: UserID {
    get throws { try UserID("eve") }
}

/// `motion` made as a prompted take from 2 s to 17 s of a 20-second session, as `--perform` makes it.
private func performing(_ motion: String, seed: UInt64 = 1) throws -> SimulatedSensor {
    let sensor = SimulatedSensor(seed: seed, holder: try eve)
    sensor.perform(
        Performance(
            user: try eve, gesture: try ActivityLabel(motion), take: 1, sessionStart: 0, sessionEnd: 20, go: 2,
            stop: 17))
    return sensor
}

/// The samples read at 50 Hz over `span`.
private func samples(_ sensor: SimulatedSensor, _ span: Range<Double>) throws -> [RawSample] {
    try stride(from: span.lowerBound, to: span.upperBound, by: 0.02).map { try #require(try sensor.read(now: $0)) }
}

/// Surely under way, after the slowest reaction.
private let during = 3.0..<17.0

@Suite struct EverydayMotionTests {
    @Test func theSameSeedGivesTheSameDayAndAnotherSeedOrPersonAnother() throws {
        let day = { (seed: UInt64, holder: String) in
            try samples(
                SimulatedSensor(seed: seed, holder: try UserID(holder), everyday: EverydayMotion.allCases), 0..<120)
        }
        let first = try day(7, "eve")
        #expect(try day(7, "eve") == first)
        #expect(try day(8, "eve") != first)
        #expect(try day(7, "ivo") != first)
    }

    @Test func aDayOfEverydayMotionHasBoutsAndPauses() throws {
        let day = try samples(SimulatedSensor(seed: 3, holder: try eve, everyday: EverydayMotion.allCases), 0..<600)
        let moving = day.filter { magnitude($0.rotationRate) > 0.5 }.count
        let share = Double(moving) / Double(day.count)
        #expect(share > 0.2 && share < 0.95, "\(share)")
        let still = try samples(SimulatedSensor(seed: 3, holder: try eve), 0..<60)
        #expect(still.allSatisfy { magnitude($0.rotationRate) < 0.5 })
    }

    @Test func noEverydayMotionDuringAPromptedTake() throws {
        let busy = SimulatedSensor(seed: 2, holder: try eve, everyday: [.walk])
        let calm = SimulatedSensor(seed: 2, holder: try eve)
        for sensor in [busy, calm] {
            sensor.perform(
                Performance(user: try eve, gesture: .drive, take: 1, sessionStart: 0, sessionEnd: 30, go: 2, stop: 28))
        }
        #expect(try samples(busy, 0..<30) == samples(calm, 0..<30))
    }

    /// The body bounces at the step rate, about 2 Hz, and the arm swings at half of it.
    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func walkingSwingsTheArmAtHalfTheStepRate(seed: UInt64) throws {
        let walk = try samples(performing("walk", seed: seed), during)
        let bounce = dominantFrequency(walk.map { magnitude($0.acceleration) }, rate: 50, band: 0.5...5)
        let swing = dominantFrequency(walk.map(\.rotationRate.y), rate: 50, band: 0.3...5)
        #expect(bounce > 1.4 && bounce < 2.5, "\(bounce)")
        #expect(abs(swing - bounce / 2) < 0.15, "\(swing) \(bounce)")
    }

    @Test func typingIsSmallAndWalkingIsNot() throws {
        let typing = try samples(performing("type"), during)
        let walking = try samples(performing("walk"), during)
        #expect(standardDeviation(typing.map { magnitude($0.acceleration) }) < 0.05)
        #expect(rms(typing.map { magnitude($0.rotationRate) }) < 0.3)
        #expect(standardDeviation(walking.map { magnitude($0.acceleration) }) > 0.15)
        #expect(rms(walking.map { magnitude($0.rotationRate) }) > 1)
    }

    @Test func turningTheWristRollsAboutTheForearm() throws {
        let turning = try samples(performing("turn-wrist"), during)
        let r = (0..<3).map { axis in rms(turning.map { $0.rotationRate[axis] }) }
        #expect(r[0] > 3 * max(r[1], r[2]), "\(r)")
    }

    /// Every motion moves, within the sensor's range, and is unlike each gesture it could be taken for.
    @Test(arguments: EverydayMotion.allCases)
    func eachMotionMovesInRangeUnlikeTheGestures(motion: EverydayMotion) throws {
        let signal = try samples(performing(motion.rawValue), during)
        #expect(rms(signal.map { magnitude($0.rotationRate) }) > 0.02)
        #expect(signal.allSatisfy { magnitude($0.acceleration) < 6 && magnitude($0.rotationRate) < 20 })
        for gesture in ["shake", "chop", "drive"] {
            let other = try samples(performing(gesture), during)
            let difference = zip(signal, other).map {
                distance($0.acceleration, $1.acceleration) + distance($0.rotationRate, $1.rotationRate)
            }
            #expect(mean(difference) > 0.1, "\(motion) against \(gesture)")
        }
    }

    @Test func aListNamesMotionsOrAll() throws {
        #expect(try EverydayMotion.list("walk, pick-up") == [.walk, .pickUp])
        #expect(try EverydayMotion.list("all") == EverydayMotion.allCases)
        #expect(try EverydayMotion.list("") == [])
        #expect(throws: SensorError.self) { try EverydayMotion.list("walk,jog") }
    }
}
