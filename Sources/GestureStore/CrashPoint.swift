import Foundation
import Synchronization

/// The durable steps of a change (a file renamed into place, rows appended, a catalog transaction
/// committed), counted so that a test can stop a command dead after any one of them: with
/// `GESTURE_CRASH_AFTER_STEP=n` in its environment a process kills itself with SIGKILL on
/// completing its nth step. `GESTURE_CRASH_AFTER_STEP` unset, a step only counts.
enum CrashPoint {
    private static let steps = Atomic<Int>(0)
    private static let limit = ProcessInfo.processInfo.environment["GESTURE_CRASH_AFTER_STEP"].flatMap(Int.init)

    static func stepCompleted() {
        let count = steps.add(1, ordering: .relaxed).newValue
        if count == limit { kill(getpid(), SIGKILL) }
    }
}
