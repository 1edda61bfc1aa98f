import ArgumentParser
import Foundation
import GestureCore
import GestureRecording
import GestureSensors

/// The live detector as a whole process: from start to its first prediction (model loading
/// included), its resident memory, and its CPU share on a 100 Hz sensor.
struct LiveBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "gesture detect as a process: start to first prediction, peak RSS, CPU share at 100 Hz.")

    @Option(help: "A model file from `gesture train` (25 Hz).") var model: String
    @Option(help: "Process starts to time.") var runs = 15
    @Option(help: "Seconds of real-time detection at 100 Hz for the CPU share.") var seconds = 10.0

    private var gesture: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gesture").path
    }

    func run() async throws {
        let replay = try await recording()
        var starts: [Double] = []
        for _ in 0..<runs {
            starts.append(try timeToFirstLine(["detect", "--model", model, "--fast", "--predictions",
                                               "--device", "replay:\(replay)", "--duration", "1"]))
        }
        print(String(format: "start to first prediction: median %.1f ms, min %.1f, max %.1f (%d runs)",
                     median(starts) * 1e3, starts.min()! * 1e3, starts.max()! * 1e3, runs))
        let (cpu, wall, rss) = try usage(["detect", "--model", model, "--device", "sim", "--rate", "100",
                                          "--duration", "\(seconds)"])
        print(String(format: "real-time detection on the simulated sensor at 100 Hz for %.0f s: CPU %.2f %% of one core, peak RSS %.1f MiB",
                     wall, cpu / wall * 100, rss))
    }

    /// A simulated recording at 25 Hz to replay.
    private func recording() async throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-live-\(getpid())").path
        let plan = try SessionPlan(user: UserID("bench"), gesture: .shake, takes: 1)
        let recorder = try SessionRecorder(plan: plan, sensor: SimulatedSensor(holder: plan.user), clock: ManualClock(),
                                           rate: 25, folder: RecordingsFolder(.init(folder)))
        let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
        let outcome = await recorder.run(speech: speech)
        await speech.finish()
        return outcome.file.string
    }

    private func timeToFirstLine(_ arguments: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gesture)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = MonotonicClock().now()
        try process.run()
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ValidationError("gesture detect printed no prediction") }
            seen += chunk
        }
        let elapsed = MonotonicClock().now() - started
        process.terminate()
        process.waitUntilExit()
        return elapsed
    }

    /// CPU seconds, wall seconds and peak RSS (MiB) of a child run to its end.
    private func usage(_ arguments: [String]) throws -> (Double, Double, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gesture)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Foundation reaps the child itself, so its usage shows in the children's totals.
        let before = childrenUsage()
        let started = MonotonicClock().now()
        try process.run()
        process.waitUntilExit()
        let wall = MonotonicClock().now() - started
        let after = childrenUsage()
        return (after.cpu - before.cpu, wall, after.peakMiB)
    }

    /// CPU seconds of every child reaped so far, and the largest peak RSS among them.
    private func childrenUsage() -> (cpu: Double, peakMiB: Double) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
        return (cpu, Double(usage.ru_maxrss) / 1024)
    }
}
