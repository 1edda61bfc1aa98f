import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Turns the signals that ask a command to stop (SIGINT, SIGTERM, SIGHUP when the terminal closes,
/// SIGQUIT) into a call, on a queue of their own, for as long as it lives; and SIGPIPE, which the
/// process ignores, when `Terminal` finds its output closed.
///
/// The handler is installed with `sigaction` before `init` returns and only writes the signal's
/// number to a pipe, so a signal sent the moment a command says "Ctrl-C stops" is never lost; a
/// dispatch signal source would ignore it until its registration reaches the event loop.
public final class SignalWatch: @unchecked Sendable {
    private let handler: @Sendable (String) -> Void
    private let signal = Mutex<Int32?>(nil)
    private static let queue = DispatchQueue(label: "gesture.signals", qos: .userInteractive)
    private static let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")]
    private static let current = Mutex<Weak>(Weak())
    private static let pipe = SignalPipe()

    private struct Weak: @unchecked Sendable {
        weak var watch: SignalWatch?
    }

    public var received: Int32? { signal.withLock { $0 } }

    public init(_ handler: @escaping @Sendable (String) -> Void) {
        self.handler = handler
        Self.current.withLock { $0.watch = self }
        Self.pipe.start(on: Self.queue) { number in
            guard let name = Self.signals.first(where: { $0.0 == number })?.1 else { return }
            Self.current.withLock { $0.watch }?.receive(number, name)
        }
        for (number, _) in Self.signals { Self.pipe.route(number) }
    }

    /// Lets the kernel deliver the stop signals to the calling thread, the one thread that takes
    /// them: dispatch's threads block them all, and a program inherits the mask of the thread that
    /// executed it (`gesture detect` becomes gesture-detect on one of dispatch's threads).
    public static func unblockStopSignals() {
        var stops = sigset_t()
        sigemptyset(&stops)
        for (number, _) in signals { sigaddset(&stops, number) }
        pthread_sigmask(SIG_UNBLOCK, &stops, nil)
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
        for (number, _) in Self.signals { Glibc.signal(number, SIG_DFL) }
    }
}

/// The write end of the self-pipe, read by the C signal handler; set once, before any handler runs.
nonisolated(unsafe) private var signalPipeWriter: Int32 = -1

/// A pipe the signal handler writes each signal's number to, and a dispatch source that reads it.
private final class SignalPipe: @unchecked Sendable {
    private let reader: Int32
    private let started = Mutex<(any DispatchSourceRead)?>(nil)

    /// Without a pipe (no file descriptors left) the signals keep their default: they end the process.
    init() {
        var ends: [Int32] = [-1, -1]
        if Glibc.pipe(&ends) == 0 {
            // Non-blocking both ways: a full pipe must never stop the handler, nor an empty one the reader.
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
            }
        }
        reader = ends[0]
        signalPipeWriter = ends[1]
    }

    /// Reads the pipe on `queue` from now on, passing each signal number to `deliver`.
    func start(on queue: DispatchQueue, _ deliver: @escaping @Sendable (Int32) -> Void) {
        started.withLock { source in
            guard source == nil, reader >= 0 else { return }
            let reader = self.reader
            let made = DispatchSource.makeReadSource(fileDescriptor: reader, queue: queue)
            made.setEventHandler {
                var number: UInt8 = 0
                while Glibc.read(reader, &number, 1) == 1 { deliver(Int32(number)) }
            }
            made.resume()
            source = made
        }
    }

    /// Sends `number` to the pipe from now on.
    func route(_ number: Int32) {
        guard reader >= 0 else { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = Glibc.write(signalPipeWriter, &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
    }
}
