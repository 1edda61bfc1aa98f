import ArgumentParser
import GestureCommandLine
import GestureCore
import GestureSensors
import GestureSimulation

struct Monitor: AsyncParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract:
            "Show a sensor's readings live: acceleration, rotation, gravity, rate and lost, held or clipped readings.",
        discussion: """
            On a terminal the view is redrawn in place five times a second until Ctrl-C; otherwise \
            it prints one line a second.
            """)

    @OptionGroup var sensor: SensorOptions
    /// Where to serve the phone's page, for `--device phone`.
    @OptionGroup var server: ServerOptions
    @OptionGroup var folder: FolderOptions

    @Option(help: "Stop after this many seconds (default: at Ctrl-C).")
    var seconds = Double.infinity

    @Flag(help: "Run on simulated time, without waiting (simulated sensor and replays only).")
    var fast = false

    func checkNumbers() throws {
        try Failure.check("--seconds", seconds, in: 0.001...Double.infinity, being: "a number of seconds")
    }

    func run() async throws {
        try checkNumbers()
        let clock: any SamplingClock = fast ? ManualClock() : MonotonicClock()
        let phone = try await PhoneConnection.open(for: sensor, fast: fast, server, folder: folder.folder)
        let device = try phone?.device(through: sensor) ?? sensor.open(holder: try userID("monitor"), clock: clock)
        if fast, !(device is SimulatedSensor || device is ReplaySensor) {
            throw Failure.fastNeedsSimulatedTime
        }
        let rate: Double
        do {
            let asked = sensor.rate(for: device)
            try device.validate(rate: asked)
            rate = try device.start(rate: asked)
        } catch {
            throw Failure.usage("\(error)")
        }
        defer { device.stop() }
        device.warnings.forEach(Terminal.warn)
        let view = MonitorView(
            device: device.info, rate: rate, range: DeviceDirectory.knownRanges[device.info.id],
            hint: seconds.isFinite ? nil : "Ctrl-C ends")
        let sampler = Sampler(sensor: device, clock: clock, rate: rate)
        let watch = SignalWatch { _ in sampler.stop() }
        defer { withExtendedLifetime(watch) {} }
        do {
            try await sampler.listen(for: seconds) { view.add($0) }
        } catch {
            view.finish()
            await phone?.close(saying: "Stopped")
            throw Failure.failed("\(error)")
        }
        view.finish()
        await phone?.close(saying: "Done")
    }
}
