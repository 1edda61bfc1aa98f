import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureSensors
import struct SystemPackage.FilePath

struct LoadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "CSV load speed on a generated recording file, and pandas.read_csv on the same file if pandas is installed.")

    @Option(help: "Rows in the generated file.") var rows = 1_000_000
    @Option(help: "Loads to time; the figures are their medians.") var repeats = 3
    @Option(help: "Keep the generated file here instead of a temporary one.") var file: String?

    func run() throws {
        let path = file ?? FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-load.csv").path
        defer { if file == nil { try? FileManager.default.removeItem(atPath: path) } }
        try generate(to: path)
        let bytes = Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        print(String(format: "%@: %d rows, %.1f MB", path, rows, bytes / 1e6))
        let swift = try (0..<repeats).map { _ in
            try time { _ = try RecordingFile.rows(at: FilePath(path)) }
        }
        report("GestureLab RecordingFile.rows", seconds: median(swift), bytes: bytes)
        if let pandas = pandasSeconds(path) {
            report("pandas.read_csv", seconds: pandas, bytes: bytes)
            print(String(format: "GestureLab / pandas time: %.2f", median(swift) / pandas))
        } else {
            print("pandas: not installed (python3 -c 'import pandas' fails); comparison skipped")
        }
    }

    private func report(_ what: String, seconds: Double, bytes: Double) {
        print(String(format: "%-30@ %7.3f s  %10.0f rows/s  %7.1f MB/s", what, seconds, Double(rows) / seconds, bytes / 1e6 / seconds))
    }

    /// Simulated recordings of the book's three gestures, as `gesture record` writes them.
    private func generate(to path: String) throws {
        let sensor = SimulatedSensor(holder: try UserID("bench"))
        var filter = AttitudeFilter()
        var text = RecordingCSV.header + "\n"
        text.reserveCapacity(rows * 360)
        for k in 0..<rows {
            let time = Double(k) / 100
            let sample = try sensor.read(now: time)!
            let row = RecordingRow(
                session: SessionID(start: "2026-11-21T08:00:00.000Z", take: k / 1000 + 1), activity: k % 1000 < 400 ? .rest : .shake,
                timestamp: Double(k % 1000) / 100, motion: filter.update(sample),
                rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate)
            text += RecordingCSV.line(for: row)
            text += "\n"
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    private func time(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The median of `repeats` pandas.read_csv calls, timed inside Python so start-up is not counted.
    private func pandasSeconds(_ path: String) -> Double? {
        let script = """
            import sys, time, statistics
            import pandas
            times = []
            for _ in range(\(repeats)):
                start = time.perf_counter(); pandas.read_csv(sys.argv[1]); times.append(time.perf_counter() - start)
            print(statistics.median(times))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
