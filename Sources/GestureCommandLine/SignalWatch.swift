import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns the signals that ask a command to stop (SIGINT, SIGTERM, SIGHUP when the terminal closes,
/// SIGQUIT) into a call, on a queue of their own, for as long as it lives; and SIGPIPE, which the
/// process ignores, when `Terminal` finds its output closed.
public final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let handler: @Sendable (String) -> Void
    private let signal = Mutex<Int32?>(nil)
    private static let queue = DispatchQueue(label: "gesture.signals", qos: .userInteractive)
    private static let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")]
    private static let current = Mutex<Weak>(Weak())

    private struct Weak: @unchecked Sendable {
        weak var watch: SignalWatch?
    }

    public var received: Int32? { signal.withLock { $0 } }

    public init(_ handler: @escaping @Sendable (String) -> Void) {
        self.handler = handler
        sources = Self.signals.map { number, _ in
            Glibc.signal(number, SIG_IGN)
            // A queue of its own: the global queue's few threads may all be busy running tasks.
            return DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
        }
        for (source, (number, name)) in zip(sources, Self.signals) {
            source.setEventHandler { [weak self] in self?.receive(number, name) }
            source.resume()
        }
        Self.current.withLock { $0.watch = self }
    }

    /// The output a person or a pipe reads is gone (EPIPE): a watch stops its work as on SIGINT;
    /// without one, the command ends as SIGPIPE would have ended it.
    static func outputClosed() {
        guard let watch = current.withLock({ $0.watch }) else { exit(128 + SIGPIPE) }
        queue.async { watch.receive(SIGPIPE, "SIGPIPE") }
    }

    private func receive(_ number: Int32, _ name: String) {
        let first = signal.withLock { received in
            defer { received = received ?? number }
            return received == nil
        }
        if first { handler(name) }
    }

    deinit {
        for source in sources { source.cancel() }
        for (number, _) in Self.signals { Glibc.signal(number, SIG_DFL) }
    }
}
