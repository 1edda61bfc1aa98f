import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a call, on a queue of their own, for as long as it lives.
public final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let signal = Mutex<Int32?>(nil)
    private static let queue = DispatchQueue(label: "gesture.signals", qos: .userInteractive)
    private static let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]

    public var received: Int32? { signal.withLock { $0 } }

    public init(_ handler: @escaping @Sendable (String) -> Void) {
        sources = Self.signals.map { number, _ in
            Glibc.signal(number, SIG_IGN)
            // A queue of its own: the global queue's few threads may all be busy running tasks.
            return DispatchSource.makeSignalSource(signal: number, queue: Self.queue)
        }
        for (source, (number, name)) in zip(sources, Self.signals) {
            source.setEventHandler { [weak self] in
                self?.signal.withLock { $0 = $0 ?? number }
                handler(name)
            }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
        Glibc.signal(SIGINT, SIG_DFL)
        Glibc.signal(SIGTERM, SIG_DFL)
    }
}
