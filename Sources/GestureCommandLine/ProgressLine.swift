#if canImport(Glibc)
import Glibc
#endif

/// A line of progress on standard error, redrawn in place, for a person at a terminal: drawn only
/// when standard error is a terminal, only once the work has gone on for `delay` (two seconds,
/// or `GESTURE_PROGRESS_DELAY` seconds), at most ten times a second, and cleared when done.
public struct ProgressLine {
    private let start = ContinuousClock.now
    private let delay: Duration
    private let isShown: Bool
    private var lastDrawn: ContinuousClock.Instant?

    public init() {
        isShown = isatty(STDERR_FILENO) == 1
        let seconds = getenv("GESTURE_PROGRESS_DELAY").flatMap { Double(String(cString: $0)) } ?? 2
        delay = .milliseconds(Int(seconds * 1000))
    }

    public mutating func show(_ text: String) {
        let now = ContinuousClock.now
        guard isShown, now - start >= delay, lastDrawn.map({ now - $0 >= .milliseconds(100) }) ?? true else { return }
        lastDrawn = now
        Terminal.write("\r\u{1B}[K" + text, to: STDERR_FILENO)
    }

    /// Takes the line away, so that what follows starts on a clean one.
    public func clear() {
        if lastDrawn != nil { Terminal.write("\r\u{1B}[K", to: STDERR_FILENO) }
    }
}
