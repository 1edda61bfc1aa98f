import ArgumentParser
import Foundation
import GestureCore
import GestureSensors
import GestureStore
import WSClient

/// `gesture record --device sim --with phone`, the phone a client that speaks the page's protocol
/// as the page does (60 readings a second, sent every 50 ms) on this machine's clocks: how far from
/// a row's time the phone's reading on it was taken, which is the error of the phone's clock on the
/// host's (a board's readings carry the kernel's own times).
struct CompanionAlignmentRun {
    var seconds: Double
    static let rate = 60.0

    /// Each row's error, in seconds: when the recording puts the phone's reading, less when the
    /// phone took it. Positive: the phone's motion shows late.
    func measure() async throws -> [Double] {
        let folder = try benchFolder("companion")
        defer { try? FileManager.default.removeItem(at: folder) }
        let recordings = folder.appendingPathComponent("recordings")
        let recorder = try BackgroundGesture(
            [
                "record", "--device", "sim", "--with", "phone", "--port", "0", "--rate", "100", "--user", "bench",
                "--gesture", "shake", "--takes", "1", "--take", "\(seconds)", "--rest", "1", "--quiet", "--keep",
                "--recordings", recordings.path,
            ], in: folder)
        let socket = try await recorder.address(of: "/phone/socket", scheme: "ws")
        let clock = MonotonicClock()
        let start = clock.now()
        _ = try? await WebSocketClient.connect(url: socket, logger: quietLogger) { inbound, outbound, _ in
            let answering = Task { for try await _ in inbound {} }
            defer { answering.cancel() }
            try await outbound.write(.text(#"{"source":"device-motion"}"#))
            var sent = 0
            while recorder.isRunning {
                try await Task.sleep(for: .milliseconds(50))
                // Reading k is taken at k / rate: those taken by now.
                let due = Int((clock.now() - start) * Self.rate) + 1
                guard due > sent else { continue }
                try await outbound.write(
                    .text(#"{"readings":[\#((sent..<due).map(Self.reading).joined(separator: ","))]}"#))
                sent = due
            }
        }
        // The wall clock the catalog's times are on, less the monotonic one the readings are on.
        let wallLessMonotonic = Date().timeIntervalSince1970 - clock.now()
        let catalog = try Catalog(path: recordings.appendingPathComponent("catalog.sqlite").path)
        guard let session = try catalog.sessions().first else { throw ValidationError("the recording saved no take") }
        let began =
            try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(session.start).timeIntervalSince1970
            - wallLessMonotonic
        let text = try String(
            contentsOf: recordings.appendingPathComponent(session.file), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: ",")
            // The first second: the phone's first readings may not have come yet.
            guard let timestamp = Double(fields[2]), timestamp >= 1, let alpha = Double(fields[fields.count - 1])
            else { return nil }
            let taken = start + alpha / (Double.pi / 180) * 8 / Self.rate
            return began + timestamp - taken
        }
    }

    /// Reading k as the page sends it: its time in ms, acceleration with gravity in m/s², and the
    /// rotation rate in °/s, alpha counting the readings (an eighth of one a degree a second).
    static func reading(_ k: Int) -> String { "[\(Double(k) * 1000 / rate),0,0,9.8,\(Double(k) / 8),0,0]" }
}
