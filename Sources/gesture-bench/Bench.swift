import ArgumentParser
import Foundation
import GestureCore
import GestureMotion
import GestureSensors
import GestureSimulation

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture-bench",
        abstract:
            "Benchmarks that print figures. Run them on an idle machine, in release: swift run -c release gesture-bench …",
        subcommands: [
            SamplingBench.self, LoadBench.self, CleanBench.self, TrainSpeedBench.self, PredictSpeedBench.self,
            AccuracyBench.self, PersonalizeBench.self, LiveBench.self, CLibraryBench.self, AlignBench.self,
            StudioBench.self, OpenSetBench.self, LargeFileBench.self,
        ])
}

struct SamplingBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sampling",
        abstract: "How closely the sampling thread keeps the rate, on the simulated sensor and the real clock.")

    @Option(parsing: .upToNextOption, help: "Rates to measure, in Hz.")
    var rates: [Double] = [25, 100, 400]

    @Option(help: "Seconds to sample at each rate, per run.")
    var seconds = 10.0

    @Option(help: "Runs at each rate; the table gives their median.")
    var repeats = 3

    func run() async throws {
        print("rate Hz  runs  samples  rate error ppm  |dt-T| p50 ms  p99 ms  max ms")
        for rate in rates {
            var runs: [TimingStats] = []
            for _ in 0..<repeats { runs.append(try await measure(rate: rate)) }
            let medianOf = { (figure: (TimingStats) -> Double) in median(runs.map(figure)) }
            print(
                String(
                    format: "%7g  %4d  %7d  %14.1f  %13.4f  %6.4f  %6.4f",
                    rate, repeats, runs[0].sampleCount, medianOf { $0.rateErrorPPM },
                    medianOf { $0.p50 * 1e3 }, medianOf { $0.p99 * 1e3 }, medianOf { $0.max * 1e3 }))
        }
    }

    /// Samples as a recording does, on the sampling thread with its scheduling, and times each reading.
    private func measure(rate: Double) async throws -> TimingStats {
        let clock = MonotonicClock()
        let sensor = SimulatedSensor(holder: try UserID("bench"))
        let sampler = Sampler(sensor: sensor, clock: clock, rate: try sensor.start(rate: rate))
        var times: [Double] = []
        times.reserveCapacity(Int(rate * seconds) + 1)
        for try await reading in sampler.samples(from: clock.now() + 0.05, duration: seconds) {
            times.append(reading.sample.time)
        }
        return TimingStats(times: times, nominalRate: rate)
    }
}
