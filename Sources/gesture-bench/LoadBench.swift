import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCore
import GestureMotion
import GestureSimulation

import struct SystemPackage.FilePath

struct LoadBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract:
            "CSV load speed on a generated recording file, and pandas.read_csv on the same file if pandas is installed."
    )

    @Option(help: "Rows in the generated file.") var rows = 1_000_000
    @Option(help: "Loads to time; the figures are their medians.") var repeats = 3
    @Option(help: "A recording file to load; when it does not exist, generated there and kept.") var file: String?

    func run() throws {
        let path = file ?? FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-load.csv").path
        defer { if file == nil { try? FileManager.default.removeItem(atPath: path) } }
        if !FileManager.default.fileExists(atPath: path) { try generate(to: path) }
        let bytes = Double((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        var loaded = 0
        // The two alternate, so that a busy moment on a shared machine hurts both alike.
        var swift: [Timing] = [], pandas: [Timing] = []
        for _ in 0..<repeats {
            swift.append(try Timing.measure { loaded = try RecordingFile.rows(at: FilePath(path)).count })
            if let timing = pandasTiming(path) { pandas.append(timing) }
        }
        print(String(format: "%@: %d rows, %.1f MB; medians of %d loads", path, loaded, bytes / 1e6, repeats))
        print("reader                         wall s      rows/s       MB/s   CPU s")
        report("GestureLab RecordingFile.rows", swift, rows: loaded, bytes: bytes)
        guard !pandas.isEmpty else {
            print("pandas: not installed (python3 -c 'import pandas' fails); comparison skipped")
            return
        }
        report("pandas.read_csv", pandas, rows: loaded, bytes: bytes)
        print(
            String(
                format: "GestureLab / pandas: wall time %.2f, CPU time %.2f",
                median(swift.map(\.wall)) / median(pandas.map(\.wall)),
                median(swift.map(\.cpu)) / median(pandas.map(\.cpu))))
    }

    private func report(_ what: String, _ timings: [Timing], rows: Int, bytes: Double) {
        let wall = median(timings.map(\.wall)), cpu = median(timings.map(\.cpu))
        print(
            what.padding(toLength: 30, withPad: " ", startingAt: 0)
                + String(format: " %6.3f  %10.0f  %9.1f  %6.3f", wall, Double(rows) / wall, bytes / 1e6 / wall, cpu))
    }

    /// Simulated recordings of Machine Learning by Tutorials' three gestures, as `gesture record` writes them.
    private func generate(to path: String) throws {
        let sensor = SimulatedSensor(holder: try UserID("bench"))
        var filter = AttitudeFilter()
        var text = RecordingCSV.header + "\n"
        text.reserveCapacity(rows * 360)
        for k in 0..<rows {
            let time = Double(k) / 100
            let sample = try sensor.read(now: time)!
            let row = RecordingRow(
                session: SessionID(start: "2026-11-21T08:00:00.000Z", take: k / 1000 + 1),
                activity: k % 1000 < 400 ? .rest : .shake,
                timestamp: Double(k % 1000) / 100, motion: filter.update(sample),
                rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate)
            text += RecordingCSV.line(for: row)
            text += "\n"
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// One pandas.read_csv call, timed inside Python so that start-up is not counted; nil without pandas.
    private func pandasTiming(_ path: String) -> Timing? {
        let script = """
            import sys, time
            import pandas
            wall, cpu = time.perf_counter(), time.process_time()
            pandas.read_csv(sys.argv[1])
            print(time.perf_counter() - wall, time.process_time() - cpu)
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
        let figures = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap {
            Double($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard process.terminationStatus == 0, figures.count == 2 else { return nil }
        return Timing(wall: figures[0], cpu: figures[1])
    }
}

/// Elapsed and processor seconds of one run.
struct Timing {
    var wall: Double
    var cpu: Double

    static func measure(_ body: () throws -> Void) rethrows -> Timing {
        let (wall, cpu) = (ContinuousClock.now, processSeconds())
        try body()
        let elapsed = ContinuousClock.now - wall
        return Timing(
            wall: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            cpu: processSeconds() - cpu)
    }

    private static func processSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
