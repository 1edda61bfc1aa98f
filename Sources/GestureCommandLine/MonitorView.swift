import GestureCore
import GestureSensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A sensor's live view on standard output. On a terminal, a block of lines redrawn in place
/// `terminalRefresh` times a second of readings, with lines printed through the view (prompts)
/// scrolling above it; elsewhere, one plain line a second.
public final class MonitorView: Sendable {
    private let device: SensorInfo
    private let isTerminal: Bool
    /// The view's last line on a terminal, e.g. how to end it.
    private let hint: String?
    private let state: Mutex<State>

    private struct State {
        var monitor: SensorMonitor
        var start: Double?
        var lastDrawn: Double?
        var drawnLines = 0
    }

    public static let terminalRefresh = 5.0

    public init(
        device: SensorInfo, rate: Double, range: SensorRange?, hint: String? = nil,
        isTerminal: Bool = isatty(STDOUT_FILENO) == 1
    ) {
        self.device = device
        self.hint = hint
        self.isTerminal = isTerminal
        state = Mutex(State(monitor: SensorMonitor(rate: rate, range: range)))
    }

    /// Takes a reading in, and draws the view when it is due.
    public func add(_ reading: SensorReading) {
        state.withLock { state in
            state.monitor.add(reading)
            let time = reading.sample.time
            state.start = state.start ?? time
            let interval = isTerminal ? 1 / Self.terminalRefresh : 1
            guard let lastDrawn = state.lastDrawn else {
                state.lastDrawn = time
                return draw(&state)
            }
            guard time - lastDrawn >= interval else { return }
            // Steps of the interval, so that a late reading does not shift every later one.
            state.lastDrawn = lastDrawn + interval * ((time - lastDrawn) / interval).rounded(.down)
            draw(&state)
        }
    }

    /// Prints a line above the view, which is drawn again below it.
    public func print(_ line: String) {
        state.withLock { state in
            guard isTerminal, state.drawnLines > 0 else { return Terminal.say(line) }
            Terminal.write("\u{1B}[\(state.drawnLines)A\r\u{1B}[J\(line)\n", to: STDOUT_FILENO)
            state.drawnLines = 0
            draw(&state)
        }
    }

    /// Prints what the view saw, in one line below it.
    public func finish() {
        let line = summary
        Terminal.write((isTerminal ? "\r\u{1B}[K" : "") + line + "\n", to: STDOUT_FILENO)
    }

    /// What the view saw, in one line.
    public var summary: String {
        state.withLock { state in
            guard let snapshot = state.monitor.latest, let start = state.start else { return "no readings" }
            let counts = snapshot.counts
            let seconds = snapshot.sample.time - start
            return "\(counts.readings.counting("reading")) in \(seconds.fixed(1)) s, \(counts.lost) lost, "
                + "\(counts.held) held, \(clippedText(counts, state.monitor.range))"
        }
    }

    private func draw(_ state: inout State) {
        guard let snapshot = state.monitor.latest else { return }
        let elapsed = snapshot.sample.time - (state.start ?? snapshot.sample.time)
        guard isTerminal else {
            return Terminal.say(plainLine(snapshot, elapsed: elapsed, range: state.monitor.range))
        }
        let lines = block(snapshot, elapsed: elapsed, rate: state.monitor.rate, range: state.monitor.range)
        let up = state.drawnLines > 0 ? "\u{1B}[\(state.drawnLines)A" : ""
        Terminal.write(up + lines.map { "\r\u{1B}[K\($0)\n" }.joined(), to: STDOUT_FILENO)
        state.drawnLines = lines.count
    }

    private func block(_ snapshot: MonitorSnapshot, elapsed: Double, rate: Double, range: SensorRange?) -> [String] {
        let sample = snapshot.sample
        let counts = snapshot.counts
        return [
            "\(device.id) (\(device.name))  \(elapsed.fixed(1)) s  rate \(achievedText(snapshot)) of \(rate.shortText) Hz",
            axisLine("acceleration x", sample.acceleration.x, unit: "g", scale: Self.accelerationScale),
            axisLine("             y", sample.acceleration.y, unit: "g", scale: Self.accelerationScale),
            axisLine("             z", sample.acceleration.z, unit: "g", scale: Self.accelerationScale),
            axisLine("rotation     x", sample.rotationRate.x, unit: "rad/s", scale: Self.rotationScale),
            axisLine("             y", sample.rotationRate.y, unit: "rad/s", scale: Self.rotationScale),
            axisLine("             z", sample.rotationRate.z, unit: "rad/s", scale: Self.rotationScale),
            gravityText(snapshot),
            "readings \(counts.readings)  lost \(counts.lost)  held \(counts.held)  \(clippedText(counts, range))",
        ] + (hint.map { [$0] } ?? [])
    }

    private func plainLine(_ snapshot: MonitorSnapshot, elapsed: Double, range: SensorRange?) -> String {
        let a = snapshot.sample.acceleration, r = snapshot.sample.rotationRate
        let counts = snapshot.counts
        let axes = { (v: Vector3) in [v.x, v.y, v.z].map { $0.signedFixed(3) }.joined(separator: " ") }
        return "\(elapsed.fixed(1)) s  acceleration \(axes(a)) g  rotation \(axes(r)) rad/s  \(gravityText(snapshot))  "
            + "rate \(achievedText(snapshot))  lost \(counts.lost)  held \(counts.held)  \(clippedText(counts, range))"
    }

    private func achievedText(_ snapshot: MonitorSnapshot) -> String {
        snapshot.achievedRate.map { "\($0.fixed(1)) Hz" } ?? "…"
    }

    private func gravityText(_ snapshot: MonitorSnapshot) -> String {
        let roll = (snapshot.roll * 180 / .pi).signedFixed(1)
        let pitch = (snapshot.pitch * 180 / .pi).signedFixed(1)
        return "gravity roll \(roll)° pitch \(pitch)° (\(snapshot.upAxis) up)"
    }

    private func clippedText(_ counts: MonitorSnapshot.Counts, _ range: SensorRange?) -> String {
        range == nil ? "clipped: range unknown" : "clipped \(counts.clipped)"
    }

    /// The scales of the bars: a reading beyond them pins its bar's end.
    static let accelerationScale = 2.0
    static let rotationScale = 5.0
    static let barHalfWidth = 20

    /// A labelled value with a bar from the middle, e.g. `acceleration x  +0.50 g  ……………|#####………`.
    private func axisLine(_ label: String, _ value: Double, unit: String, scale: Double) -> String {
        let half = Self.barHalfWidth
        let filled = Int((min(abs(value) / scale, 1) * Double(half)).rounded())
        let left =
            value < 0
            ? String(repeating: "·", count: half - filled) + String(repeating: "█", count: filled)
            : String(repeating: "·", count: half)
        let right =
            value > 0
            ? String(repeating: "█", count: filled) + String(repeating: "·", count: half - filled)
            : String(repeating: "·", count: half)
        return "\(label) \(value.signedFixed(3).aligningRight(to: 8)) \(unit.aligningLeft(to: 5)) \(left)|\(right)"
    }
}
