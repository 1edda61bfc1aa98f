import GestureCore
import GestureSensors
import GestureSimulation
import Synchronization
import Testing

private var alice: UserID {
    get throws { try UserID("alice") }
}

/// A sensor that keeps its own time: each read returns the next tick of its 50 Hz timer, from 0;
/// with `losing`, the ticks that are multiples of it are lost rather than read.
private final class DeviceTimedSensor: MotionSensor {
    let info = SensorInfo(id: "timer", name: "test timer", maximumRate: 50)
    var pacing: SensorPacing { .deviceTimed }
    private let ticks = Mutex(0)
    private let lost = Mutex(0)
    let failAfter: Int?
    let losing: Int?

    init(failAfter: Int? = nil, losing: Int? = nil) {
        self.failAfter = failAfter
        self.losing = losing
    }

    var lostReadings: Int { lost.withLock { $0 } }

    func start(rate: Double) throws(SensorError) -> Double { 50 }
    func stop() {}

    func read(now: Double) throws(SensorError) -> RawSample? {
        let tick = ticks.withLock { ticks in
            if let losing, ticks > 0, ticks.isMultiple(of: losing) {
                ticks += 1
                lost.withLock { $0 += 1 }
            }
            defer { ticks += 1 }
            return ticks
        }
        if let failAfter, tick >= failAfter { throw SensorError(device: "timer", reason: "unplugged") }
        return RawSample(time: Double(tick) / 50, acceleration: [0, 0, 1], rotationRate: .zero)
    }
}

/// A polled sensor whose every read takes `cost` seconds of the sampler's manual clock.
private final class SlowSensor: MotionSensor {
    let info = SensorInfo(id: "slow", name: "slow sysfs", maximumRate: 50)
    var pacing: SensorPacing { .polled }
    var lostReadings: Int { 0 }
    let clock: ManualClock
    let cost: Double

    init(clock: ManualClock, cost: Double) {
        self.clock = clock
        self.cost = cost
    }

    func start(rate: Double) throws(SensorError) -> Double { rate }
    func stop() {}

    func read(now: Double) throws(SensorError) -> RawSample? {
        clock.advance(by: cost)
        return RawSample(time: now, acceleration: [0, 0, 1], rotationRate: .zero)
    }
}

@Suite struct SamplerTests {
    @Test func aPollThatCannotKeepUpSkipsTheTicksItMissedAndCountsThemLost() throws {
        // 64 Hz and reads of three periods: every time is exact in binary.
        let clock = ManualClock(start: 0)
        let sampler = Sampler(sensor: SlowSensor(clock: clock, cost: 3.0 / 64), clock: clock, rate: 64)
        var readings: [SensorReading] = []
        try sampler.run(from: 0, duration: 2) { readings.append($0) }
        #expect(readings.map { $0.sample.time * 64 } == Array(stride(from: 0.0, through: 126, by: 3)))
        #expect(readings.map(\.lostBefore) == [0] + Array(repeating: 2, count: 42))
    }

    @Test func runDeliversOneSampleAtEachTickOfTheRate() throws {
        let clock = ManualClock(start: 1000)
        let sampler = try Sampler(sensor: SimulatedSensor(holder: alice), clock: clock, rate: 100)
        var times: [Double] = []
        try sampler.run(from: 1000, duration: 2) { times.append($0.sample.time) }
        try #require(times.count == 200)
        #expect(times.enumerated().map { abs($1 - (1000 + Double($0) / 100)) }.max()! < 1e-9)
    }

    @Test func runStartingLaterThanTheClockWaitsForTheStart() throws {
        let clock = ManualClock(start: 0)
        let sampler = try Sampler(sensor: SimulatedSensor(holder: alice), clock: clock, rate: 50)
        var times: [Double] = []
        try sampler.run(from: 12.5, duration: 1) { times.append($0.sample.time) }
        #expect(times.count == 50)
        #expect(times.first == 12.5)
        #expect(abs(clock.now() - (12.5 + 49.0 / 50)) < 1e-9)
    }

    @Test func droppedSamplesAreNotDeliveredAndTheRestKeepTheirTimes() throws {
        let sensor = try SimulatedSensor(holder: alice, faults: try SimulatedFaults("dropped"))
        try sensor.perform(
            Performance(
                user: alice, gesture: .shake, take: 1, sessionStart: 1000, sessionEnd: 1002,
                go: 1000.5, stop: 1001.5))
        let sampler = Sampler(sensor: sensor, clock: ManualClock(start: 1000), rate: 100)
        var times: [Double] = []
        try sampler.run(from: 1000, duration: 2) { times.append($0.sample.time) }
        #expect(times.count < 200)
        #expect(!times.isEmpty)
        #expect(times.map { ($0 - 1000) * 100 }.allSatisfy { abs($0 - $0.rounded()) < 1e-6 })
        #expect(times == times.sorted())
    }

    @Test func stopEndsTheLoopAfterTheCurrentReading() throws {
        let sampler = try Sampler(sensor: SimulatedSensor(holder: alice), clock: ManualClock(), rate: 100)
        var count = 0
        try sampler.run(from: 1000, duration: 10) { _ in
            count += 1
            if count == 37 { sampler.stop() }
        }
        #expect(count == 37)
        #expect(sampler.isStopped)
    }

    @Test func stoppedSamplerDeliversNothing() throws {
        let sampler = try Sampler(sensor: SimulatedSensor(holder: alice), clock: ManualClock(), rate: 100)
        sampler.stop()
        var count = 0
        try sampler.run(from: 1000, duration: 1) { _ in count += 1 }
        #expect(count == 0)
    }

    @Test func streamYieldsTheSameSamplesAsRun() async throws {
        let direct = try Sampler(
            sensor: SimulatedSensor(seed: 3, holder: alice), clock: ManualClock(start: 1000), rate: 100)
        var expected: [RawSample] = []
        try direct.run(from: 1000, duration: 2) { expected.append($0.sample) }

        let streamed = try Sampler(
            sensor: SimulatedSensor(seed: 3, holder: alice), clock: ManualClock(start: 1000), rate: 100)
        var received: [RawSample] = []
        for try await reading in streamed.samples(from: 1000, duration: 2) {
            received.append(reading.sample)
        }
        #expect(received.count == 200)
        #expect(received == expected)
    }

    @Test func deviceTimedSensorIsReadUntilItsTimePassesTheEnd() throws {
        let sampler = Sampler(sensor: DeviceTimedSensor(), clock: ManualClock(start: 0), rate: 50)
        var times: [Double] = []
        try sampler.run(from: 0, duration: 1) { times.append($0.sample.time) }
        #expect(times == (0..<50).map { Double($0) / 50 })
    }

    @Test func eachReadingCarriesTheReadingsLostJustBeforeIt() throws {
        let sampler = Sampler(sensor: DeviceTimedSensor(losing: 10), clock: ManualClock(start: 0), rate: 50)
        var readings: [SensorReading] = []
        try sampler.run(from: 0, duration: 1) { readings.append($0) }
        let lostBefore = readings.filter { $0.lostBefore > 0 }.map { ($0.sample.time * 50).rounded() }
        #expect(lostBefore == [11, 21, 31, 41])
        #expect(readings.allSatisfy { $0.lostBefore <= 1 })
        #expect(readings.count == 46)
    }

    @Test func sensorErrorEndsTheStreamWithThatError() async throws {
        let sampler = Sampler(sensor: DeviceTimedSensor(failAfter: 10), clock: ManualClock(start: 0), rate: 50)
        var count = 0
        let error = await #expect(throws: SensorError.self) {
            for try await _ in sampler.samples(from: 0, duration: 5) { count += 1 }
        }
        #expect(count == 10)
        #expect(error?.reason == "unplugged")
    }
}
