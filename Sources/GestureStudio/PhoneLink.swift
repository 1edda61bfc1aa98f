import Dispatch
import Foundation
import GestureCore
import GestureSensors
import Synchronization

/// One phone's page as the studio's server sees it (a slot of `PhonePairing`): the one connection
/// that streams readings, the readings on the host's clock until the sensor takes them, and the
/// prompts the page shows.
public final class PhoneLink: Sendable {
    /// Where the phone is.
    public enum State: Sendable, Equatable {
        /// No page is connected.
        case waiting
        /// A page is connected; it has not said what it reads yet (its Start was not tapped).
        case connected
        /// Readings come through `source`.
        case streaming(PhoneSource)
    }

    private struct Shared {
        var state = State.waiting
        var connection = 0
        var clock = PhoneClock()
        /// Sensors reading the phone now; readings are queued for them only, so that a page nobody
        /// reads (`gesture studio` without a live view of it) leaves nothing behind.
        var readers = 0
        var queued: [RawSample] = []
        /// Why the last connection ended, until the sensor has heard it.
        var ended: String?
        var toPage: AsyncStream<String>.Continuation?
        var received = 0
        /// Readings received from the page connected now.
        var receivedFromThisPage = 0
        /// Commands reading the phone through the studio (`PhoneRelay`), each sent the page's readings.
        var relays: [Int: AsyncStream<String>.Continuation] = [:]
        var lastRelay = 0
    }

    /// The slot's number, from 1: the page is "phone 2" in the studio's views and on its own screen.
    public let number: Int
    private let shared = Mutex(Shared())
    private let arrival = DispatchSemaphore(value: 0)
    private let log: ReadingLog?
    private let notify: @Sendable (String) -> Void
    /// What the notes add to name the phone: nothing when it is the only one.
    private let noteSuffix: String

    /// - Parameters:
    ///   - log: a file to write every reading received to, as it arrived, for tests to compare.
    ///   - notify: told of connections, disconnections and refused messages, a line each.
    public convenience init(
        log: String? = nil, notify: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(SensorError) {
        self.init(
            number: 1, log: try log.map { path throws(SensorError) in try ReadingLog(path: path) }, notify: notify)
    }

    /// - Parameter named: whether the notes name the phone, as they do when there are several.
    init(number: Int, log: ReadingLog?, named: Bool = false, notify: @escaping @Sendable (String) -> Void) {
        self.number = number
        self.log = log
        self.notify = notify
        noteSuffix = named ? " (phone \(number))" : ""
    }

    /// What the studio's views and the page call the phone.
    public var name: String { "phone \(number)" }

    public var state: State { shared.withLock { $0.state } }

    /// The API the page reads, once its first readings have come; nil before, and when no page is connected.
    public var streamingThrough: PhoneSource? {
        shared.withLock { shared in
            guard case .streaming(let source) = shared.state, shared.receivedFromThisPage > 0 else { return nil }
            return source
        }
    }

    /// Readings received since the page connected first.
    public var receivedReadings: Int { shared.withLock { $0.received } }

    /// Shows `text` big on the page, if one is connected.
    public func show(prompt text: String) { send(#"{"prompt":\#(jsonString(text))}"#) }

    /// Tells the page that `text` ended its part, and closes its connection.
    public func close(saying text: String) {
        show(prompt: text)
        _ = shared.withLock { $0.toPage?.finish() }
    }

    /// Waits until a page streams and its first readings have come, so that nothing is timed from a
    /// page that said which API it reads but has not read yet; nil if the task is cancelled first.
    public func streamingSource() async -> PhoneSource? {
        while !Task.isCancelled {
            if let source = streamingThrough { return source }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    // MARK: The server's side

    /// A new connection, with the messages to send it, the first telling the page its name; nil
    /// when another page is connected already.
    func connect() -> (id: Int, toPage: AsyncStream<String>)? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let id: Int? = shared.withLock { shared in
            guard shared.state == .waiting else { return nil }
            shared.connection += 1
            shared.state = .connected
            shared.clock = PhoneClock()
            shared.receivedFromThisPage = 0
            shared.toPage = continuation
            return shared.connection
        }
        guard let id else { return nil }
        continuation.yield(#"{"paired":\#(jsonString(name))}"#)
        notify("phone's page connected\(noteSuffix)")
        return (id, stream)
    }

    /// Takes in a message from the connection `id`.
    func receive(_ message: PhoneMessage, from id: Int, at time: Double) {
        if let source = message.source {
            shared.withLock { if $0.connection == id { $0.state = .streaming(source) } }
            return notify("phone streaming through the \(source.rawValue) API\(noteSuffix)")
        }
        let readings = message.readings ?? []
        let samples: [RawSample]? = shared.withLock { shared in
            guard shared.connection == id, case .streaming(let source) = shared.state else { return nil }
            let times = shared.clock.times(of: readings.map { $0[0] }, arrivedAt: time)
            let samples = zip(readings, times).map { source.sample($0.0.dropFirst(), at: $0.1) }
            if shared.readers > 0 { shared.queued += samples }
            shared.received += samples.count
            shared.receivedFromThisPage += samples.count
            for relay in shared.relays.values { relay.yield(message.text) }
            return samples
        }
        guard let samples else { return }
        log?.write(zip(readings, samples).map { ($0.0[0], $0.1) })
        arrival.signal()
    }

    /// The connection `id` ended, for `reason`.
    func disconnect(_ id: Int, reason: String) {
        let ended = shared.withLock { shared in
            guard shared.connection == id, shared.state != .waiting else { return false }
            shared.state = .waiting
            shared.ended = reason
            shared.toPage?.finish()
            shared.toPage = nil
            for relay in shared.relays.values { relay.finish() }
            shared.relays = [:]
            return true
        }
        guard ended else { return }
        notify("phone's page disconnected\(noteSuffix): \(reason)")
        arrival.signal()
    }

    // MARK: A command's side, through the studio

    /// A command reading the phone through the studio: the API the page reads, and the page's
    /// messages of readings from now on, until it disconnects; nil unless it streams.
    func relay() -> (id: Int, source: PhoneSource, messages: AsyncStream<String>)? {
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        return shared.withLock { shared in
            guard case .streaming(let source) = shared.state, shared.receivedFromThisPage > 0 else { return nil }
            shared.lastRelay += 1
            shared.relays[shared.lastRelay] = continuation
            return (shared.lastRelay, source, messages)
        }
    }

    /// The command reading through relay `id` has gone.
    func endRelay(_ id: Int) {
        _ = shared.withLock { $0.relays.removeValue(forKey: id) }?.finish()
    }

    // MARK: The sensor's side

    /// A sensor starts reading: readings are queued from now on; those that arrived before, and
    /// any disconnection it has not heard of, are dropped.
    func beginReading() {
        shared.withLock { shared in
            shared.readers += 1
            shared.queued = []
            shared.ended = nil
        }
    }

    /// A sensor stopped reading; with none left, nothing is queued any more.
    func endReading() {
        shared.withLock { shared in
            shared.readers -= 1
            if shared.readers == 0 { shared.queued = [] }
        }
    }

    /// Readings received and not yet taken by a sensor.
    var queuedReadings: Int { shared.withLock { $0.queued.count } }

    /// The readings that arrived, waiting up to `timeout` seconds for some; none if none came.
    /// Throws when the page has gone.
    func readings(waitingUpTo timeout: Double) throws(PhoneGone) -> [RawSample] {
        for attempt in 0..<2 {
            let (samples, ended) = shared.withLock { shared in
                defer { shared.queued = [] }
                return (shared.queued, shared.queued.isEmpty ? shared.ended : nil)
            }
            if let ended { throw PhoneGone(reason: ended) }
            guard samples.isEmpty, attempt == 0 else { return samples }
            _ = arrival.wait(timeout: .now() + timeout)
        }
        return []
    }

    private func send(_ text: String) {
        _ = shared.withLock { $0.toPage?.yield(text) }
    }
}

/// The phone's page went away while its readings were awaited.
struct PhoneGone: Error {
    var reason: String
}

/// A JSON string literal of `text`.
func jsonString(_ text: String) -> String {
    String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
}

/// Every reading received, a line each: the phone's time in ms and the six values in g and rad/s,
/// in their shortest exact form.
final class ReadingLog: Sendable {
    private let handle: Mutex<FileHandle>

    init(path: String) throws(SensorError) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw SensorError(device: PhoneSensor.id, reason: "cannot write the reading log \(path)") }
        self.handle = Mutex(handle)
    }

    func write(_ readings: [(stamp: Double, sample: RawSample)]) {
        let lines = readings.map { stamp, sample in
            let values = [sample.acceleration, sample.rotationRate].flatMap { [$0.x, $0.y, $0.z] }
            return ([stamp] + values).map { "\($0)" }.joined(separator: " ") + "\n"
        }
        handle.withLock { $0.write(Data(lines.joined().utf8)) }
    }
}
