import ArgumentParser
import BrowserDriver
import Foundation
import GestureStore
import Logging
import Synchronization
import WSClient

import struct SystemPackage.FilePath

/// `gesture record --device phone`, and `gesture studio` recording a group of phones, fed by
/// clients that speak the phone's page's protocol: the readings the server sustains, the delay
/// from a reading sent to its row in the recording file, and the server's memory.
struct StudioBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "The phone as a sensor: readings per second sustained, delay from page to row on disk, memory.")

    @Option(parsing: .upToNextOption, help: "Rates the phone sends at and the recorder records at, in Hz.")
    var rates: [Double] = [60, 200, 1000]

    @Option(help: "Seconds of the take at each rate, and of the group's take.") var seconds = 10.0

    @Option(parsing: .upToNextOption, help: "Phones `gesture studio` records at once, at 60 Hz each (none: 0).")
    var phones: [Int] = [1, 2, 4]

    @Option(help: "Recordings of the simulated board with the phone, to measure the phone's clock (none: 0).")
    var alignmentRuns = 3

    @Option(help: "Seconds the live view is watched in headless Chromium (0: not watched).")
    var viewSeconds = 10.0

    func run() async throws {
        print("CPU: \(cpuModel())")
        print("rate Hz" + Self.columns)
        for rate in rates {
            let run = try await PhoneRun(rate: rate, seconds: seconds).measure()
            print(String(format: "%7.0f", rate) + run.line)
        }
        let groups = phones.filter { $0 > 0 }
        if !groups.isEmpty { print("\ngesture studio, a group recording at 60 Hz a phone:\nphones" + Self.columns) }
        for count in groups {
            let run = try await GroupRun(phones: count, seconds: seconds).measure()
            print(String(format: "%6d", count) + run.line)
        }
        print(
            """
            to server: from the message sent to the reading in the server's log; to disk: to its row in the \
            recording file, which the recorder writes a second at a time before a take, and a take's rows \
            (from a second before its prompt) when the take ends and is aligned: their delay grows with the take.
            """)
        if alignmentRuns > 0 { try await measureAlignment() }
        if viewSeconds > 0 { try await LiveViewRun(seconds: viewSeconds).measure() }
    }

    /// `record --with phone`: the phone's clock on the host's, as a board's rows see it.
    private func measureAlignment() async throws {
        print(
            "\na board and the phone together (--device sim --with phone at 100 Hz; the phone at 60 Hz, sent every 50 ms):"
        )
        print("run  rows  phone reading's error p50 ms  p5 ms  p95 ms")
        var medians: [Double] = []
        for run in 1...alignmentRuns {
            let errors = try await CompanionAlignmentRun(seconds: seconds).measure().map { $0 * 1000 }
            medians.append(errors.median ?? .nan)
            print(
                String(
                    format: "%3d  %4d  %28.1f  %5.1f  %6.1f", run, errors.count, errors.median ?? .nan,
                    errors.percentile(0.05) ?? .nan, errors.percentile(0.95) ?? .nan))
        }
        print(
            String(format: "median of the runs' medians: %.1f ms", medians.median ?? .nan)
                + " (when a row puts the phone's reading, less when the phone took it; positive: late)")
    }

    static let columns =
        "  sent  received  lost  received/s  rows  to server p50 ms  p99 ms  "
        + "to disk before take p50 ms  p99 ms  in a take p50 ms  p99 ms  peak RSS MiB"
}

/// One `gesture record --device phone` run, fed at `rate`.
private struct PhoneRun {
    var rate: Double
    var seconds: Double

    func measure() async throws -> Figures {
        let folder = try benchFolder("studio")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try BackgroundGesture(
            [
                "record", "--device", "phone", "--port", "0", "--rate", "\(rate)", "--user", "bench", "--gesture",
                "shake", "--takes", "1", "--take", "\(seconds)", "--rest", "1", "--quiet", "--keep",
                "--phone-log", folder.appendingPathComponent("phone.log").path,
                "--recordings", folder.appendingPathComponent("recordings").path,
            ], in: folder)
        let socket = try await recorder.address(of: "/phone/socket", scheme: "ws")
        let feed = Mutex(Feed(phones: 1, watcher: FileWatcher(in: folder, users: ["bench"])))
        let start = now()
        let rate = rate
        // The recorder closes the connection when its take ends, perhaps in the middle of a write.
        _ = try? await WebSocketClient.connect(url: socket, logger: quietLogger) { inbound, outbound, _ in
            // Reading what the server sends answers its pings, as a browser does; unanswered, it closes.
            let answering = Task { for try await _ in inbound {} }
            defer { answering.cancel() }
            try await outbound.write(.text(#"{"source":"device-motion"}"#))
            while recorder.isRunning {
                if let batch = feed.withLock({ $0.due(phone: 0, at: now(), rate: rate, since: start) }) {
                    try await outbound.write(.text(#"{"readings":[\#(batch)]}"#))
                }
                feed.withLock { _ = $0.look(recorder) }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return feed.withLock { feed in
            feed.look(recorder)
            return Figures(of: feed, take: prompted(in: folder))
        }
    }
}

/// `gesture studio` recording a group of `phones` phones at once, each its own user, for one take
/// of `seconds`: each phone a client that sends 60 readings a second in batches of 50 ms, as the
/// phone's page does.
private struct GroupRun {
    static let rate = 60.0
    var phones: Int
    var seconds: Double

    /// What the clients share: what they sent and saw, and whether the recording still runs.
    private final class Shared: Sendable {
        let feed: Mutex<Feed>
        let recording = Atomic(true)

        init(_ feed: Feed) { self.feed = Mutex(feed) }
    }

    func measure() async throws -> Figures {
        let folder = try benchFolder("studio-group")
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try BackgroundGesture(
            [
                "studio", "--port", "0", "--quiet", "--phone-log", folder.appendingPathComponent("phone.log").path,
                "--recordings", folder.appendingPathComponent("recordings").path,
            ], in: folder)
        let socket = try await studio.address(of: "/phone/socket", scheme: "ws")
        let api = try await studio.address(of: "/api/recording", scheme: "http")
        let users = (1...phones).map { "p\($0)" }
        let shared = Shared(Feed(phones: phones, watcher: FileWatcher(in: folder, users: users)))
        let start = now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for phone in 0..<phones {
                group.addTask { try await Self.stream(phone: phone, to: socket, shared: shared, since: start) }
            }
            group.addTask {
                defer { shared.recording.store(false, ordering: .relaxed) }
                try await Self.record(users, at: api, shared: shared, server: studio, seconds: seconds)
            }
            try await group.waitForAll()
        }
        return shared.feed.withLock { feed in
            feed.look(studio)
            return Figures(of: feed, take: prompted(in: folder))
        }
    }

    /// Phone `phone`'s page: streams its readings until the recording ends.
    private static func stream(phone: Int, to socket: String, shared: Shared, since start: Double) async throws {
        _ = try await WebSocketClient.connect(url: socket, logger: quietLogger) { inbound, outbound, _ in
            let answering = Task { for try await _ in inbound {} }
            defer { answering.cancel() }
            try await outbound.write(.text(#"{"source":"device-motion"}"#))
            while shared.recording.load(ordering: .relaxed) {
                if let batch = shared.feed.withLock({ $0.due(phone: phone, at: now(), rate: rate, since: start) }) {
                    try await outbound.write(.text(#"{"readings":[\#(batch)]}"#))
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// Once every phone's readings arrive, records the group (phone N as user pN) through the
    /// studio's API, and watches until it ends.
    private static func record(
        _ users: [String], at api: String, shared: Shared, server: BackgroundGesture, seconds: Double
    ) async throws {
        while shared.feed.withLock({ $0.look(server) }) < users.count {
            try await Task.sleep(for: .milliseconds(10))
        }
        let phones = users.enumerated().map { #"{"phone":\#($0.offset + 1),"user":"\#($0.element)"}"# }
        let body =
            #"{"phones":[\#(phones.joined(separator: ","))],"gesture":"shake","takes":1,"take":\#(seconds),"rest":1}"#
        var state = try Self.state(after: try await StudioRequest(api, body: body).send())
        while state.name == "waiting" || state.name == "recording" {
            try await Task.sleep(for: .milliseconds(10))
            shared.feed.withLock { _ = $0.look(server) }
            state = try Self.state(after: try await StudioRequest(api).send())
        }
        guard state.name == "finished" else {
            throw ValidationError("the group's recording ended \(state.name): \(state.error ?? "")")
        }
    }

    private struct State: Decodable {
        var name: String
        var error: String?

        enum CodingKeys: String, CodingKey {
            case name = "state"
            case error
        }
    }

    private static func state(after answer: (status: Int, body: Data)) throws -> State {
        guard answer.status == 200 else {
            throw ValidationError(
                "the studio answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try JSONDecoder().decode(State.self, from: answer.body)
    }
}

/// What the clients sent, and what arrived: in the server's log, and in the recording files.
private struct Figures {
    var sent: Int
    var received: Int
    var rows: Int
    /// Readings received a second, from the first received to the last.
    var sustained: Double
    /// Readings sent before the last received of their phone that never came.
    var lost: Int
    var toServer: [Double]
    /// Rows before the take, which the recorder writes a second at a time.
    var toDiskBetween: [Double]
    /// Rows of the take (from a second before its prompt), written when it ends and is aligned.
    var toDiskInTake: [Double]
    var peakKiB: Int

    /// What `feed` sent and saw, the rows in its session's `take` being the take's.
    init(of feed: Feed, take: PartialRangeFrom<Double>?) {
        let sent = feed.sent
        let watcher = feed.watcher
        toServer = watcher.logged.compactMap { reading, time in
            sent[reading.phone].indices.contains(reading.index) ? time - sent[reading.phone][reading.index] : nil
        }
        let toDisk = { (inTake: Bool) in
            watcher.written.compactMap { reading, row in
                sent[reading.phone].indices.contains(reading.index)
                    && (take?.contains(row.timestamp) ?? false) == inTake
                    ? row.time - sent[reading.phone][reading.index] : nil
            }
        }
        toDiskBetween = toDisk(false)
        toDiskInTake = toDisk(true)
        let arrivals = watcher.logged.values
        let span = (arrivals.max() ?? 0) - (arrivals.min() ?? 0)
        self.sent = sent.map(\.count).reduce(0, +)
        received = arrivals.count
        rows = watcher.rows
        sustained = span > 0 ? Double(arrivals.count - 1) / span : 0
        lost = sent.indices.map { phone in
            let last = watcher.logged.keys.filter { $0.phone == phone }.map(\.index).max() ?? -1
            return (0..<(last + 1)).count { watcher.logged[.init(phone: phone, index: $0)] == nil }
        }.reduce(0, +)
        peakKiB = feed.peakKiB
    }

    var line: String {
        let ms = { (values: [Double], p: Double) in
            values.isEmpty ? "-" : String(format: "%.1f", percentile(values, p) * 1000)
        }
        return String(
            format: "  %4d  %8d  %4d  %10.0f  %4d  %16@  %6@  %26@  %6@  %16@  %6@  %12.1f", sent, received, lost,
            sustained, rows, ms(toServer, 0.5), ms(toServer, 0.99), ms(toDiskBetween, 0.5), ms(toDiskBetween, 0.99),
            ms(toDiskInTake, 0.5), ms(toDiskInTake, 0.99), Double(peakKiB) / 1024)
    }
}

/// A new folder for a run's files, under the temporary folder.
func benchFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-\(name)-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// The rows a recorder holds until the take ends, in seconds of its session: from a second before
/// the prompt (where the motion may start early) to the end.
private func prompted(in folder: URL) -> PartialRangeFrom<Double>? {
    let catalog = try? Catalog(path: folder.appendingPathComponent("recordings/catalog.sqlite").path)
    guard let from = try? catalog?.sessions().first?.promptFrom else { return nil }
    return (from - 1)...
}

private func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

let quietLogger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }

/// `gesture studio`'s live view of the simulated sensor in headless Chromium on a laptop's screen:
/// the readings a second it draws and the frames a second it draws them in.
private struct LiveViewRun {
    var seconds: Double

    func measure() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            return print("live view: not measured, /usr/bin/chromium is not installed (scripts/setup --tests)")
        }
        let folder = try benchFolder("view")
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try BackgroundGesture(["studio", "--port", "0"], in: folder)
        let chromium = try await Chromium(in: FilePath(folder.path))
        let page = try await chromium.open(try await studio.address(of: "/", scheme: "http"), on: .laptop)
        try await page.waitUntil("the devices listed", "studio.devices !== undefined")
        _ = try await page.evaluate(
            "document.getElementById('live-device').value = 'sim'; document.getElementById('live-start').click(); true")
        try await page.waitUntil("the first frame", "studio.live.frames > 0")
        let count = "[studio.live.readings, studio.live.frames, performance.now()]"
        let before = try await page.evaluate(count) as? [Double] ?? []
        try await Task.sleep(for: .seconds(seconds))
        let after = try await page.evaluate(count) as? [Double] ?? []
        guard before.count == 3, after.count == 3 else { throw ValidationError("the live view gave no counts") }
        let span = (after[2] - before[2]) / 1000
        print(
            String(
                format:
                    "live view of sim in Chromium: %.0f readings/s drawn in %.1f frames/s over %.1f s; studio peak RSS %.1f MiB",
                (after[0] - before[0]) / span, (after[1] - before[1]) / span, span, Double(studio.peakKiB) / 1024))
    }
}

/// What the clients have sent, and what they have seen arrive.
private struct Feed {
    /// When each phone's readings were sent, by phone and reading.
    var sent: [[Double]]
    var watcher: FileWatcher
    var peakKiB = 0

    init(phones: Int, watcher: FileWatcher) {
        sent = Array(repeating: [], count: phones)
        self.watcher = watcher
    }

    /// Phone `phone`'s readings due by `now` at `rate` that were not sent yet, as the page batches
    /// them; nil if none.
    mutating func due(phone: Int, at now: Double, rate: Double, since start: Double) -> String? {
        let due = Int((now - start) * rate)
        guard due > sent[phone].count else { return nil }
        let batch = (sent[phone].count..<due).map { Self.reading($0, phone: phone, rate: rate) }
        sent[phone] += Array(repeating: now, count: batch.count)
        return batch.joined(separator: ",")
    }

    /// Looks at the files and the server's memory; returns how many phones have been heard from.
    @discardableResult mutating func look(_ server: BackgroundGesture) -> Int {
        watcher.poll(at: now())
        peakKiB = max(peakKiB, server.peakKiB)
        return watcher.phonesHeard
    }

    /// Reading k of phone `phone` as the page sends it: its time in ms, acceleration with gravity
    /// in m/s², and the rotation rate in °/s, alpha telling the readings apart and beta the phones.
    static func reading(_ k: Int, phone: Int, rate: Double) -> String {
        "[\(Double(k) * 1000 / rate),\(Double(k % 7) / 4),1.5,9.5,\(Double(k) / 8),\(phone),0]"
    }
}

/// `gesture` in the background, in `folder`, what it says on standard error kept in a file there.
final class BackgroundGesture: Sendable {
    private let process: Process
    private let errors: String

    init(_ arguments: [String], in folder: URL) throws {
        errors = folder.appendingPathComponent("gesture.err").path
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("gesture")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var isRunning: Bool { process.isRunning }

    /// The first address it prints of the page at `path` with its token, as `scheme` would reach it.
    func address(of path: String, scheme: String) async throws -> String {
        while process.isRunning {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            if let page = said.firstMatch(of: /http:\/\/([^ \n\/]+)\/[^ \n]*\?token=([0-9a-f]+)/) {
                return "\(scheme)://\(page.1)\(path)?token=\(page.2)"
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw ValidationError("gesture ended: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
    }

    /// The most memory it has held so far, in KiB (VmHWM).
    var peakKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        return status.firstMatch(of: /VmHWM:\s+(\d+) kB/).flatMap { Int($0.1) } ?? 0
    }
}

/// Watches the server's reading log and the users' recording files grow, and notes when each
/// reading first appears in each.
private struct FileWatcher {
    /// Reading `index` of phone `phone`, told apart by its rotation about z and x (`Feed.reading`).
    struct Reading: Hashable {
        var phone: Int
        var index: Int

        init(phone: Int, index: Int) {
            self.phone = phone
            self.index = index
        }

        init(rotationX x: Double, z: Double) {
            let degrees = Double.pi / 180
            self.init(phone: Int((x / degrees).rounded()), index: Int((z / degrees * 8).rounded()))
        }
    }

    let log: String
    let recordings: [String]
    private(set) var logged: [Reading: Double] = [:]
    /// When each reading's row appeared, and its time in its session.
    private(set) var written: [Reading: (time: Double, timestamp: Double)] = [:]
    private(set) var rows = 0
    private var logOffset = 0
    private var recordingOffsets: [Int]

    /// The files of a run in `folder`: its log, and `users`' recordings.
    init(in folder: URL, users: [String]) {
        log = folder.appendingPathComponent("phone.log").path
        recordings = users.map { folder.appendingPathComponent("recordings/\($0)-recordings.csv").path }
        recordingOffsets = Array(repeating: 0, count: users.count)
    }

    /// The phones whose readings have arrived.
    var phonesHeard: Int { Set(logged.keys.map(\.phone)).count }

    mutating func poll(at time: Double) {
        // The log: the phone's time in ms, then the six values, rotation last.
        for line in Self.newLines(of: log, from: &logOffset) {
            let values = line.split(separator: " ").compactMap { Double($0) }
            guard values.count == 7 else { continue }
            let reading = Reading(rotationX: values[4], z: values[6])
            if logged[reading] == nil { logged[reading] = time }
        }
        for (file, path) in recordings.enumerated() {
            for line in Self.newLines(of: path, from: &recordingOffsets[file]) where !line.hasPrefix("sessionId") {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                guard fields.count > 5, let timestamp = Double(fields[2]), let x = Double(fields[fields.count - 3]),
                    let z = Double(fields[fields.count - 1])
                else { continue }
                rows += 1
                let reading = Reading(rotationX: x, z: z)
                if written[reading] == nil { written[reading] = (time, timestamp) }
            }
        }
    }

    /// The whole lines added to `path` since `offset`, which moves past them.
    private static func newLines(of path: String, from offset: inout Int) -> [Substring] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        let data = (try? handle.readToEnd()) ?? Data()
        guard let end = data.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        offset += end + 1
        return String(decoding: data[...end], as: UTF8.self).split(separator: "\n")
    }
}
