import CLinux
import Dispatch
import FoundationEssentials
import GestureCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A sample as the sampler hands it over, with how many of the device's readings were lost since
/// the sample before it (readings not read in time, or delivered too late to be placed).
public struct SensorReading: Sendable {
    public var sample: RawSample
    public var lostBefore: Int

    public init(sample: RawSample, lostBefore: Int = 0) {
        self.sample = sample
        self.lostBefore = lostBefore
    }
}

/// Reads a sensor on its own thread at a fixed rate, with absolute deadlines on the clock, and
/// hands the samples over through a stream so that nothing the consumer does can delay a reading.
public final class Sampler: Sendable {
    public let sensor: any MotionSensor
    public let clock: any SamplingClock
    public let rate: Double
    private let stopRequested = Atomic<Bool>(false)

    public init(sensor: any MotionSensor, clock: any SamplingClock, rate: Double) {
        self.sensor = sensor
        self.clock = clock
        self.rate = rate
    }

    /// Starts sampling at `start` on the clock and ends `duration` seconds later, on `stop()`, or
    /// at the first sensor error, which ends the readings.
    public func samples(from start: Double, duration: Double) -> Readings {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: SensorReading.self)
        let room = clock.isRealTime ? nil : room
        continuation.onTermination = { [self] _ in stop() }
        startThread { [self] in
            if clock.isRealTime { Self.preferRealTimeScheduling() }
            do {
                try run(from: start, duration: duration) { reading in
                    room?.wait()
                    continuation.yield(reading)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return Readings(stream: stream, room: room)
    }

    /// How far simulated time may run ahead of the reader: the readings it has not taken yet. A
    /// stop is then seen within that many readings, and memory stays bounded however long the run.
    public static let simulatedLead = 64
    /// Made at 0 and signalled up: libdispatch traps when a semaphore is freed below the value it was made with.
    private let room: DispatchSemaphore = {
        let room = DispatchSemaphore(value: 0)
        for _ in 0..<simulatedLead { room.signal() }
        return room
    }()

    /// The readings as the reader takes them; on simulated time, each one taken makes room for the next.
    public struct Readings: AsyncSequence, Sendable {
        let stream: AsyncThrowingStream<SensorReading, any Error>
        let room: DispatchSemaphore?

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<SensorReading, any Error>.AsyncIterator
            let room: DispatchSemaphore?

            public mutating func next() async throws -> SensorReading? {
                let reading = try await base.next()
                room?.signal()
                return reading
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator(), room: room)
        }
    }

    /// Asks the sampling loop to end after the reading it is taking.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        room.signal()
    }

    public var isStopped: Bool { stopRequested.load(ordering: .relaxed) }

    /// The sampling loop itself, on the calling thread. A polled sensor whose reads cannot keep up
    /// with the rate (a slow sysfs, a loaded machine) skips the ticks it missed and counts them as
    /// lost, rather than reading back to back and falling ever further behind.
    public func run(from start: Double, duration: Double, deliver: (SensorReading) -> Void) throws(SensorError) {
        let period = 1 / rate
        let end = start + duration
        var tick = 0.0
        var lost = sensor.lostReadings
        var missed = 0
        while !isStopped {
            var deadline = start + tick * period
            tick += 1
            if sensor.pacing == .polled {
                let late = Int(((clock.now() - deadline) / period).rounded(.down))
                if late > 0 {
                    missed += late
                    tick += Double(late)
                    deadline += Double(late) * period
                }
                guard deadline < end else { return }
                clock.sleep(until: deadline)
            }
            guard let sample = try sensor.read(now: clock.now()) else {
                // A device-timed sensor that went quiet must not keep the recording open.
                if sensor.pacing == .deviceTimed, clock.now() >= end { return }
                continue
            }
            guard sample.time < end else { return }
            let lostNow = sensor.lostReadings
            deliver(SensorReading(sample: sample, lostBefore: lostNow - lost + missed))
            lost = lostNow
            missed = 0
        }
    }

    /// SCHED_FIFO where the process may have it, else the smallest timer slack the kernel allows.
    private static func preferRealTimeScheduling() {
        var parameters = sched_param(sched_priority: 10)
        if pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0 {
            _ = gesture_set_timer_slack(1)
        }
    }
}

/// Runs `body` on a detached thread of its own (Foundation's `Thread` would bring in CoreFoundation,
/// which the lean detector leaves out).
private func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let work = Unmanaged.passRetained(Work(body)).toOpaque()
    let result = pthread_create(
        &thread, nil,
        { work in
            Unmanaged<Work>.fromOpaque(work!).takeRetainedValue().body()
            return nil
        }, work)
    precondition(result == 0, "cannot start the sampling thread: error \(result)")
    pthread_detach(thread)
}

extension Sampler {
    /// Samples on a thread of its own until `duration` passes, `stop()` is called, or the readings
    /// end; `each` sees every reading. A replay that reaches its end ends the run without an error.
    public func listen(for duration: Double, _ each: (SensorReading) async throws -> Void) async throws {
        do {
            for try await reading in samples(from: clock.now(), duration: duration) {
                try await each(reading)
            }
        } catch {
            guard let replay = sensor as? ReplaySensor, replay.isFinished else { throw error }
        }
    }
}
