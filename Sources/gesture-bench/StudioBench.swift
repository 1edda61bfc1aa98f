import ArgumentParser
import BrowserDriver
import Foundation
import GestureStore
import Logging
import Synchronization
import WSClient

import struct SystemPackage.FilePath

/// `gesture record --device phone` fed by a client that speaks the phone's page's protocol: the
/// readings the server sustains, the delay from a reading sent to its row in the recording file,
/// and the recorder's memory.
struct StudioBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "The phone as a sensor: readings per second sustained, delay from page to row on disk, memory.")

    @Option(parsing: .upToNextOption, help: "Rates the phone sends at and the recorder records at, in Hz.")
    var rates: [Double] = [60, 200, 1000]

    @Option(help: "Seconds of the take at each rate.") var seconds = 10.0

    @Option(help: "Seconds the live view is watched in headless Chromium (0: not watched).")
    var viewSeconds = 10.0

    func run() async throws {
        print("CPU: \(cpuModel())")
        print(
            "rate Hz  sent  received  lost  received/s  rows  to server p50 ms  p99 ms  "
                + "to disk before take p50 ms  p99 ms  in a take p50 ms  p99 ms  peak RSS MiB"
        )
        for rate in rates {
            let run = try await PhoneRun(rate: rate, seconds: seconds).measure()
            print(run.line)
        }
        print(
            """
            to server: from the message sent to the reading in the server's log; to disk: to its row in the \
            recording file, which the recorder writes a second at a time before a take, and a take's rows \
            (from a second before its prompt) when the take ends and is aligned: their delay grows with the take.
            """)
        if viewSeconds > 0 { try await LiveViewRun(seconds: viewSeconds).measure() }
    }
}

/// One `gesture record --device phone` run, fed at `rate`.
private struct PhoneRun {
    var rate: Double
    var seconds: Double

    struct Figures {
        var rate: Double
        var sent: Int
        var received: Int
        var rows: Int
        /// Readings received a second, from the first received to the last.
        var sustained: Double
        /// Readings sent before the last received that never came.
        var lost: Int
        var toServer: [Double]
        /// Rows before the take, which the recorder writes a second at a time.
        var toDiskBetween: [Double]
        /// Rows of the take (from a second before its prompt), written when it ends and is aligned.
        var toDiskInTake: [Double]
        var peakKiB: Int

        var line: String {
            let ms = { (values: [Double], p: Double) in
                values.isEmpty ? "-" : String(format: "%.1f", percentile(values, p) * 1000)
            }
            return String(
                format: "%7.0f  %4d  %8d  %4d  %10.0f  %4d  %16@  %6@  %26@  %6@  %16@  %6@  %12.1f", rate, sent,
                received, lost, sustained, rows, ms(toServer, 0.5), ms(toServer, 0.99), ms(toDiskBetween, 0.5),
                ms(toDiskBetween, 0.99), ms(toDiskInTake, 0.5), ms(toDiskInTake, 0.99), Double(peakKiB) / 1024)
        }
    }

    func measure() async throws -> Figures {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-studio-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try BackgroundGesture(
            [
                "record", "--device", "phone", "--port", "0", "--rate", "\(rate)", "--user", "bench", "--gesture",
                "shake", "--takes", "1", "--take", "\(seconds)", "--rest", "1", "--quiet", "--keep",
                "--phone-log", folder.appendingPathComponent("phone.log").path,
                "--recordings", folder.appendingPathComponent("recordings").path,
            ], in: folder)
        let socket = try await recorder.address(of: "/phone/socket", scheme: "ws")
        let feed = Mutex(
            Feed(
                watcher: FileWatcher(
                    log: folder.appendingPathComponent("phone.log").path,
                    recording: folder.appendingPathComponent("recordings/bench-recordings.csv").path)))
        let start = Self.now()
        let rate = rate
        // The recorder closes the connection when its take ends, perhaps in the middle of a write.
        _ = try? await WebSocketClient.connect(
            url: socket, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
        ) { inbound, outbound, _ in
            // Reading what the server sends answers its pings, as a browser does; unanswered, it closes.
            let answering = Task { for try await _ in inbound {} }
            defer { answering.cancel() }
            try await outbound.write(.text(#"{"source":"device-motion"}"#))
            while recorder.isRunning {
                if let batch = feed.withLock({ $0.due(at: Self.now(), rate: rate, since: start) }) {
                    try await outbound.write(.text(#"{"readings":[\#(batch)]}"#))
                }
                feed.withLock { $0.look(recorder) }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return feed.withLock { feed in
            feed.look(recorder)
            return Self.figures(of: feed, rate: rate, take: Self.prompted(in: folder))
        }
    }

    /// What the feed sent and the watcher saw arrive in the log and in the file.
    private static func figures(of feed: Feed, rate: Double, take: PartialRangeFrom<Double>?) -> Figures {
        let sent = feed.sent
        let toServer = feed.watcher.logged.compactMap { k, time in k < sent.count ? time - sent[k] : nil }
        let written = feed.watcher.written
        let toDisk = { (inTake: Bool) in
            written.compactMap { k, row in
                k < sent.count && (take?.contains(row.timestamp) ?? false) == inTake ? row.time - sent[k] : nil
            }
        }
        let arrivals = feed.watcher.logged.values
        let span = (arrivals.max() ?? 0) - (arrivals.min() ?? 0)
        let last = feed.watcher.logged.keys.max() ?? -1
        return Figures(
            rate: rate, sent: sent.count, received: arrivals.count, rows: feed.watcher.rows,
            sustained: span > 0 ? Double(arrivals.count - 1) / span : 0,
            lost: (0...max(last, 0)).count { feed.watcher.logged[$0] == nil },
            toServer: toServer, toDiskBetween: toDisk(false),
            toDiskInTake: toDisk(true), peakKiB: feed.peakKiB)
    }

    /// The rows the recorder holds until the take ends, in seconds of its session: from a second
    /// before the prompt (where the motion may start early) to the end.
    static func prompted(in folder: URL) -> PartialRangeFrom<Double>? {
        let catalog = try? Catalog(path: folder.appendingPathComponent("recordings/catalog.sqlite").path)
        guard let from = try? catalog?.sessions().first?.promptFrom else { return nil }
        return (from - 1)...
    }

    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}

/// `gesture studio`'s live view of the simulated sensor in headless Chromium on a laptop's screen:
/// the readings a second it draws and the frames a second it draws them in.
private struct LiveViewRun {
    var seconds: Double

    func measure() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            return print("live view: not measured, /usr/bin/chromium is not installed (scripts/setup --tests)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-view-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
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

/// What the client has sent, and what it has seen arrive.
private struct Feed {
    /// When each reading was sent, by its index.
    var sent: [Double] = []
    var watcher: FileWatcher
    var peakKiB = 0

    /// The readings due by `now` at `rate` that were not sent yet, as the page batches them; nil if none.
    mutating func due(at now: Double, rate: Double, since start: Double) -> String? {
        let due = Int((now - start) * rate)
        guard due > sent.count else { return nil }
        let batch = (sent.count..<due).map { Self.reading($0, rate: rate) }
        sent += Array(repeating: now, count: batch.count)
        return batch.joined(separator: ",")
    }

    mutating func look(_ recorder: BackgroundGesture) {
        watcher.poll(at: PhoneRun.now())
        peakKiB = max(peakKiB, recorder.peakKiB)
    }

    /// Reading k as the page sends it: its time in ms, acceleration with gravity in m/s², and the
    /// rotation rate in °/s, alpha telling the readings apart.
    static func reading(_ k: Int, rate: Double) -> String {
        "[\(Double(k) * 1000 / rate),\(Double(k % 7) / 4),1.5,9.5,\(Double(k) / 8),0,0]"
    }
}

/// `gesture` in the background, in `folder`, what it says on standard error kept in a file there.
private final class BackgroundGesture: Sendable {
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

/// Watches the server's reading log and the recording file grow, and notes when each reading
/// first appears in each.
private struct FileWatcher {
    let log: String
    let recording: String
    private(set) var logged: [Int: Double] = [:]
    /// When each reading's row appeared, and its time in its session.
    private(set) var written: [Int: (time: Double, timestamp: Double)] = [:]
    private(set) var rows = 0
    private var logOffset = 0
    private var recordingOffset = 0

    init(log: String, recording: String) {
        self.log = log
        self.recording = recording
    }

    mutating func poll(at time: Double) {
        for line in Self.newLines(of: log, from: &logOffset) {
            // The log: the phone's time in ms, then the six values; rotation z is alpha in rad/s.
            guard let z = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            let k = Self.index(ofRotation: z)
            if logged[k] == nil { logged[k] = time }
        }
        for line in Self.newLines(of: recording, from: &recordingOffset) where !line.hasPrefix("sessionId") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count > 2, let timestamp = Double(fields[2]), let z = Double(fields[fields.count - 1])
            else { continue }
            rows += 1
            let k = Self.index(ofRotation: z)
            if written[k] == nil { written[k] = (time, timestamp) }
        }
    }

    static func index(ofRotation z: Double) -> Int { Int((z / (Double.pi / 180) * 8).rounded()) }

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
