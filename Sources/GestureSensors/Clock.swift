import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Seconds on a monotonic clock, and a way to wait for a moment on it.
public protocol SamplingClock: Sendable {
    func now() -> Double
    func sleep(until deadline: Double)
    /// Whether waiting takes real time, so that the sampling thread deserves real-time priority.
    var isRealTime: Bool { get }
}

/// CLOCK_MONOTONIC, waited on with absolute deadlines so that sleeps never accumulate error.
public struct MonotonicClock: SamplingClock {
    public init() {}

    public var isRealTime: Bool { true }

    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    public func sleep(until deadline: Double) {
        let seconds = deadline.rounded(.down)
        var spec = timespec(tv_sec: Int(seconds), tv_nsec: Int((deadline - seconds) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}

/// A clock that jumps to each deadline at once: the session and the sampler run without sleeping.
public final class ManualClock: SamplingClock {
    private let current: Mutex<Double>

    public init(start: Double = 1000) { current = Mutex(start) }

    public var isRealTime: Bool { false }

    public func now() -> Double { current.withLock { $0 } }

    public func sleep(until deadline: Double) {
        current.withLock { $0 = max($0, deadline) }
    }

    public func advance(by seconds: Double) {
        current.withLock { $0 += seconds }
    }
}
