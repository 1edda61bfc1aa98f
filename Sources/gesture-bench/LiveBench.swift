import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureRecording
import GestureSensors
import GestureSimulation
import GestureSpeech
import GestureStore

/// The live detector as a whole process: from start to its first prediction (model loading
/// included), its resident memory, and its CPU share on a 100 Hz sensor. `gesture detect` runs
/// the lean `gesture-detect`; both are timed, and with `--against` another build's `gesture-detect`
/// too, in the same interleaved rounds.
struct LiveBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "gesture detect as a process: start to first prediction, peak RSS, CPU share at 100 Hz.")

    @Option(help: "A model file from `gesture train` (25 Hz).") var model: String
    @Option(help: "Process starts to time.") var runs = 15
    @Option(help: "Seconds of real-time detection at 100 Hz for the CPU share and the memory.") var seconds = 10.0
    @Option(help: "Rounds of real-time detection, each detector in turn.") var rounds = 1
    @Option(help: "Another build's folder of executables (main's, say): its gesture-detect is measured too.")
    var against: String?

    func run() async throws {
        let replay = try await recording()
        let detection = [
            "--model", model, "--fast", "--predictions", "--device", "replay:\(replay)", "--duration", "1",
        ]
        // Each build's executables, labelled by their folder when there are two.
        let folders = (against.map { [$0] } ?? []) + [String(siblingExecutable("gesture").dropLast("/gesture".count))]
        let label = { (folder: String, name: String) in against == nil ? name : "\(folder)/\(name)" }
        let detectors = folders.map { (label($0, "gesture-detect"), "\($0)/gesture-detect") }
        let starters = folders.flatMap { folder in
            [
                (label(folder, "gesture detect"), ["\(folder)/gesture", "detect"]),
                (label(folder, "gesture-detect"), ["\(folder)/gesture-detect"]),
            ]
        }
        var starts = starters.map { _ in [Double]() }
        for _ in 0..<runs {
            for (index, starter) in starters.enumerated() {
                starts[index].append(try timeToFirstLine(starter.1 + detection))
            }
        }
        for (starter, times) in zip(starters, starts) {
            print(
                String(
                    format: "%@: start to first prediction: median %.1f ms, min %.1f, max %.1f (%d runs)",
                    starter.0, median(times) * 1e3, times.min()! * 1e3, times.max()! * 1e3, runs))
        }
        let live = ["--model", model, "--device", "sim", "--rate", "100", "--duration", "\(seconds)"]
        var usages = detectors.map { _ in [(cpu: Double, wall: Double, peak: Double)]() }
        for _ in 0..<rounds {
            for (index, detector) in detectors.enumerated() { usages[index].append(try usage([detector.1] + live)) }
        }
        for (detector, usage) in zip(detectors, usages) {
            print(
                String(
                    format:
                        "%@: real-time detection on the simulated sensor at 100 Hz for %.0f s: CPU %.2f %% of one core, peak RSS %.1f MiB (median of %d)",
                    detector.0, median(usage.map(\.wall)), median(usage.map { $0.cpu / $0.wall * 100 }),
                    median(usage.map(\.peak)), rounds))
        }
    }

    /// A simulated recording at 25 Hz to replay.
    private func recording() async throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-live-\(getpid())")
            .path
        let plan = try SessionPlan(user: UserID("bench"), gesture: .shake, takes: 1)
        let recorder = try SessionRecorder(
            plan: plan, sensor: SimulatedSensor(holder: plan.user), clock: ManualClock(),
            rate: 25, folder: RecordingsFolder(.init(folder)))
        let speech = Speech(voice: .printed, print: { _ in }, warn: { _ in })
        let outcome = await recorder.run(speech: speech)
        await speech.finish()
        return outcome.file.string
    }

    private func timeToFirstLine(_ command: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = MonotonicClock().now()
        try process.run()
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw ValidationError("\(command.joined(separator: " ")) printed no prediction")
            }
            seen += chunk
        }
        let elapsed = MonotonicClock().now() - started
        process.terminate()
        process.waitUntilExit()
        return elapsed
    }

    /// CPU seconds, wall seconds, and the detector's peak RSS in MiB: VmHWM, read while it runs (for
    /// `gesture detect` it starts afresh when `gesture` becomes `gesture-detect`, where the kernel's
    /// peak for the reaped child would count the pages `gesture` had before).
    private func usage(_ command: [String]) throws -> (Double, Double, Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // Foundation reaps the child itself, so its usage shows in the children's totals.
        let before = childrenCPU()
        let started = MonotonicClock().now()
        try process.run()
        var detectorPeak = 0.0
        while process.isRunning {
            // Read often enough that the last reading comes after the model is loaded and running.
            detectorPeak = max(detectorPeak, highWaterMiB(of: process.processIdentifier) ?? 0)
            usleep(50_000)
        }
        process.waitUntilExit()
        let wall = MonotonicClock().now() - started
        return (childrenCPU() - before, wall, detectorPeak)
    }

    private func highWaterMiB(of process: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    /// CPU seconds of every child reaped so far.
    private func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
            usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }
}
