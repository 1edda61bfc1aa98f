import ArgumentParser
import CLibEvdev
import CSensorHub
import Foundation
import GestureCore
import GestureSensors

/// Makes real kernel sensor devices that replay recorded motion, for the tests that run in the VM,
/// and compares what was recorded from them with what was injected.
@main
struct DeviceTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture-devicetest",
        abstract: "Kernel sensor devices with motion you choose, for the VM tests.",
        subcommands: [UinputDevice.self, SensorHubDevice.self, Compare.self])
}

/// The motion the devices replay: a device tumbling slowly while it shakes, made up here so the
/// test needs no data. Every axis changes by more than a quantisation step at every frame (the
/// input core drops a value equal to the axis's previous one), and no reading comes back within
/// thousands of frames, so a recorded reading names its injected frame.
enum Motion {
    /// Accelerometer (g) and gyroscope (rad/s) of frame `index` at `rate` Hz.
    static func reading(_ index: Int, rate: Double) -> [Double] {
        let t = Double(index) / rate
        let alternate: Double = index.isMultiple(of: 2) ? 1 : -1
        let acceleration = (0..<3).map { axis in wave(t, axis, amplitude: 0.6, hertz: 0.31, jump: 0.05 * alternate) }
        let rotation = (0..<3).map { axis in wave(t, axis, amplitude: 2, hertz: 0.23, jump: 0.3 * alternate) }
        return acceleration + rotation
    }

    /// A sine of its own frequency and phase per axis, and a jump that alternates every frame.
    private static func wave(_ t: Double, _ axis: Int, amplitude: Double, hertz: Double, jump: Double) -> Double {
        let k = Double(axis)
        let phase: Double = 2 * .pi * (hertz + 0.13 * k) * t + k
        return amplitude * sin(phase) + jump * (k + 1)
    }
}

/// Frames as a device reported them: its timestamp (µs since its first frame) and the reading
/// scaled back from device counts to g and rad/s. Written by the injectors, read by `compare`.
struct InjectedFrames {
    var stamps: [Int64] = []
    var readings: [[Double]] = []

    static let header = "stamp,ax,ay,az,wx,wy,wz"

    init() {}

    init(file: String) throws {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        guard lines.first.map(String.init) == Self.header else {
            throw ValidationError("\(file) does not start with \(Self.header)")
        }
        for (number, line) in lines.dropFirst().enumerated() {
            let fields = line.split(separator: ",").map { Double($0) }
            guard fields.count == 7, let stamp = fields[0], fields.allSatisfy({ $0 != nil }) else {
                throw ValidationError("\(file):\(number + 2): expected a stamp and six numbers")
            }
            stamps.append(Int64(stamp))
            readings.append(fields.dropFirst().map { $0! })
        }
    }

    mutating func append(stamp: Int64, reading: [Double]) {
        stamps.append(stamp)
        readings.append(reading)
    }

    func write(to file: String) throws {
        let lines = zip(stamps, readings).map { stamp, reading in
            (["\(stamp)"] + reading.map { "\($0)" }).joined(separator: ",")
        }
        try (([Self.header] + lines).joined(separator: "\n") + "\n").write(
            toFile: file, atomically: true, encoding: .utf8)
    }
}

/// What every injecting device is told: its pace, and where to report.
struct InjectionOptions: ParsableArguments {
    @Option var rate = 50.0
    @Option(help: "Write the injected frames, with their stamps, scaled back to g and rad/s, here.") var injected:
        String
    @Option(help: "Touched once the device exists.") var readyFile: String
    @Option(help: "Stop and remove the device, as if unplugged, once this file exists.") var stopFile: String
    @Option(help: "Send nothing for a second after this many frames, as a device holding still.") var silenceAfter: Int?

    func announceReady() throws {
        guard FileManager.default.createFile(atPath: readyFile, contents: Data()) else {
            throw ValidationError("cannot create \(readyFile)")
        }
    }

    /// Sends the motion at the rate until the stop file exists, then saves the frames as sent.
    /// `emit` turns a reading into device counts, sends them and returns the device's timestamp
    /// for the frame; `wait` passes the time until a deadline. A frame sent late is followed by
    /// the next no sooner than 95 % of a period later, so a busy machine slows the device down
    /// for a while rather than bunching its frames up, as a device's own timer would.
    func replay(
        accelerationStep: Double, rotationStep: Double, emit: ([Int32]) throws -> Int64,
        wait: (Double) throws -> Void
    ) throws {
        let clock = MonotonicClock()
        var frames = InjectedFrames()
        var start = clock.now() + 0.5
        var earliest = start
        for index in 0... {
            if FileManager.default.fileExists(atPath: stopFile) { break }
            if index == silenceAfter { start += 1 }
            try wait(max(start + Double(index) / rate, earliest))
            let counts = Motion.reading(index, rate: rate).enumerated().map { axis, value in
                Int32((axis < 3 ? value / accelerationStep : value * 180 / .pi / rotationStep).rounded())
            }
            let stamp = try emit(counts)
            earliest = clock.now() + 0.95 / rate
            frames.append(
                stamp: stamp,
                reading: counts.enumerated().map { axis, count in
                    axis < 3 ? Double(count) * accelerationStep : Double(count) * rotationStep * .pi / 180
                })
        }
        try frames.write(to: injected)
    }
}

/// A device's clock in µs since its first frame, read as a frame is sent. Frame by frame it claims
/// 0–3 ms earlier sampling (a device delivers a reading some time after taking it), so that
/// readings timed by their arrival would not match the stamps.
struct DeviceStamps {
    private let clock = MonotonicClock()
    private var first: Double?
    private var count = 0

    mutating func next() -> Int64 {
        let now = clock.now()
        let start = first ?? now
        first = start
        defer { count += 1 }
        return Int64(((now - start) * 1e6).rounded()) - Int64(count % 4) * 1000
    }
}

struct UinputDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uinput",
        abstract: "Create an accelerometer + gyroscope input device and replay motion through it.")

    @Option var name = "GestureLab VM IMU"
    @Option(help: "Units per g of ABS_X/Y/Z.") var accelerationResolution: Int32 = 1024
    @Option(help: "Units per °/s of ABS_RX/RY/RZ.") var rotationResolution: Int32 = 16
    @OptionGroup var injection: InjectionOptions

    private static let axes = [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ]

    func run() throws {
        let device = libevdev_new()!
        defer { libevdev_free(device) }
        libevdev_set_name(device, name)
        _ = libevdev_enable_property(device, UInt32(INPUT_PROP_ACCELEROMETER))
        for (index, axis) in Self.axes.enumerated() {
            let resolution = index < 3 ? accelerationResolution : rotationResolution
            var info = input_absinfo(
                value: 0, minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: resolution)
            _ = libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(axis), &info)
        }
        _ = libevdev_enable_event_code(device, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), nil)
        var uinput: OpaquePointer?
        let status = libevdev_uinput_create_from_device(device, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &uinput)
        guard status == 0, let uinput else {
            throw ValidationError("cannot create the uinput device: \(String(cString: strerror(-status)))")
        }
        defer { libevdev_uinput_destroy(uinput) }
        try injection.announceReady()
        var stamps = DeviceStamps()
        try injection.replay(
            accelerationStep: 1 / Double(accelerationResolution), rotationStep: 1 / Double(rotationResolution),
            emit: { counts in
                for (axis, code) in Self.axes.enumerated() {
                    _ = libevdev_uinput_write_event(uinput, UInt32(EV_ABS), UInt32(code), counts[axis])
                }
                let stamp = stamps.next()
                _ = libevdev_uinput_write_event(
                    uinput, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), Int32(truncatingIfNeeded: stamp))
                _ = libevdev_uinput_write_event(uinput, UInt32(EV_SYN), UInt32(SYN_REPORT), 0)
                return stamp
            },
            wait: MonotonicClock().sleep(until:))
    }
}

struct SensorHubDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensorhub",
        abstract: "Create a HID sensor hub (accelerometer + gyrometer) through uhid and replay motion through it.")

    @Option var name = "GestureLab VM sensor hub"
    @OptionGroup var injection: InjectionOptions

    func run() throws {
        let hub = sensor_hub_create(name)
        guard hub >= 0 else {
            throw ValidationError("cannot create the uhid sensor hub: \(String(cString: strerror(-hub)))")
        }
        defer { sensor_hub_destroy(hub) }
        let clock = MonotonicClock()
        // The drivers ask for reports while they probe: answer until both IIO devices exist.
        while !Self.iioDevicesExist(["accel_3d", "gyro_3d"]) {
            _ = sensor_hub_service(hub, 50)
        }
        try injection.announceReady()
        var stamps = DeviceStamps()
        try injection.replay(
            accelerationStep: 0.001, rotationStep: 0.01,
            emit: { counts in
                var acceleration = Array(counts[0..<3]), rotation = Array(counts[3..<6])
                // The hub's clock runs from its own start, a second before its first frame: a stamp
                // of 0 is no stamp to the kernel's drivers, which then stamp the scan themselves.
                let stamp = 1_000_000 + stamps.next()
                _ = sensor_hub_send(hub, Int32(sensor_hub_accelerometer), &acceleration, stamp)
                _ = sensor_hub_send(hub, Int32(sensor_hub_gyrometer), &rotation, stamp)
                return stamp
            },
            wait: { deadline in
                while case let left = deadline - clock.now(), left > 0 {
                    _ = sensor_hub_service(hub, Int32(max(1, left * 1000)))
                }
            })
    }

    private static func iioDevicesExist(_ names: [String]) -> Bool {
        let folder = "/sys/bus/iio/devices"
        let found = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).compactMap {
            try? String(contentsOfFile: "\(folder)/\($0)/name", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        return names.allSatisfy(found.contains)
    }
}

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare the raw columns recorded from a device with the frames injected into it.")

    @Option var kind: String
    @Option var injected: String
    @Option(help: "A recording, or the readings an exported gesture_detect wrote (--readings).") var recorded: String
    @Option(help: "The device's acceleration step, g; readings within half a step are equal.")
    var accelerationStep: Double
    @Option(help: "The device's rotation step, °/s.") var rotationStep: Double
    @Option(help: "The device's frame rate, Hz.") var rate = 50.0
    @Flag(help: "The recorded times must be the device's own stamps (evdev's MSC_TIMESTAMP, a sensor hub's).")
    var deviceTimes = false

    /// A recorded row: the injected frame it is, or the one it holds over a silence of the device.
    private struct Match {
        var row: RecordingRow
        var frame: Int
        var held = false
    }

    func run() throws {
        let sent = try InjectedFrames(file: injected)
        let rows = try recordedRows()
        var matches = try match(rows, to: sent.readings)
        if deviceTimes, startsInASilence(matches, stamps: sent.stamps) { matches[0].held = true }
        let frames = matches.filter { !$0.held }
        let span = frames.last!.frame - frames.first!.frame + 1
        let largest = frames.map { steps(sent.readings[$0.frame], raw($0.row)) }.max() ?? 0
        let timing = deviceTimes ? intervalErrors(matches, stamps: sent.stamps) : []
        var summary =
            "\(kind): injected while recording \(span), recorded \(rows.count) (\(rows.count - frames.count) held), "
            + "lost \(span - frames.count), " + String(format: "largest difference %.2g of a step", largest)
        if let worst = timing.max(by: { $0.error < $1.error }) {
            summary += String(format: "; times are the device's stamps to %.2g µs", worst.error * 1e6)
        }
        print(summary)
        guard span == frames.count else {
            throw ValidationError("\(kind): \(span - frames.count) injected frames are not in the recording")
        }
        try checkHeldRowsFillSilences(matches, stamps: sent.stamps)
        if let late = timing.first(where: { $0.error >= 2e-6 }) {
            throw ValidationError(
                String(
                    format: "\(kind): the interval before the row at %.6f s is %.1f µs off the device's stamps",
                    late.row.timestamp, late.error * 1e6))
        }
    }

    /// Each recorded row as an injected frame or a held one, in order; frames may be skipped
    /// (lost), never repeated or reordered.
    private func match(_ rows: [RecordingRow], to sent: [[Double]]) throws -> [Match] {
        guard let first = rows.first, let offset = sent.firstIndex(where: { equal($0, raw(first)) }) else {
            throw ValidationError("\(kind): the first recorded reading was never injected")
        }
        var next = offset
        var matches: [Match] = []
        for row in rows {
            let reading = raw(row)
            if next > offset, equal(sent[next - 1], reading), next == sent.count || !equal(sent[next], reading) {
                matches.append(Match(row: row, frame: next - 1, held: true))
                continue
            }
            while next < sent.count, !equal(sent[next], reading) { next += 1 }
            guard next < sent.count else {
                throw ValidationError(
                    "\(kind): recorded reading at \(row.session) \(row.timestamp) s was never injected, or came out of order"
                )
            }
            matches.append(Match(row: row, frame: next))
            next += 1
        }
        return matches
    }

    /// Whether the take began in a silence of the device, so that its first row holds the frame
    /// before the take, on a tick of the output grid: a whole number of periods after that frame's
    /// time, which the next frame's stamp gives.
    private func startsInASilence(_ matches: [Match], stamps: [Int64]) -> Bool {
        guard matches.count > 1, !matches[1].held, matches[1].frame == matches[0].frame + 1 else { return false }
        let gap = Double(stamps[matches[1].frame] - stamps[matches[0].frame]) * 1e-6
        let frameTime = matches[1].row.timestamp - gap
        let ticks = (matches[0].row.timestamp - frameTime) * rate
        return gap > 1.5 / rate && ticks.rounded() >= 1 && abs(ticks - ticks.rounded()) * 1e6 / rate < 2
    }

    /// A held row repeats the last frame over a silence: the device's next frame came more than a
    /// period and a half after it.
    private func checkHeldRowsFillSilences(_ matches: [Match], stamps: [Int64]) throws {
        for match in matches where match.held && match.frame + 1 < stamps.count {
            let gap = Double(stamps[match.frame + 1] - stamps[match.frame]) * 1e-6
            guard gap > 1.5 / rate else {
                throw ValidationError(
                    String(
                        format: "\(kind): a held row at %.6f s, though the device's next frame came %.1f ms after",
                        match.row.timestamp, gap * 1e3))
            }
        }
    }

    /// How far each recorded interval between two frames of a session is from the device's stamps.
    private func intervalErrors(_ matches: [Match], stamps: [Int64]) -> [(row: RecordingRow, error: Double)] {
        zip(matches, matches.dropFirst()).compactMap { a, b in
            guard !a.held, !b.held, a.row.session == b.row.session else { return nil }
            let stamped = Double(stamps[b.frame] - stamps[a.frame]) * 1e-6
            return (b.row, abs((b.row.timestamp - a.row.timestamp) - stamped))
        }
    }

    /// The recording's rows; the readings of gesture_detect as the rows of one session.
    private func recordedRows() throws -> [RecordingRow] {
        let lines = try String(contentsOfFile: recorded, encoding: .utf8).split(separator: "\n")
        guard lines.first == "time,ax,ay,az,gx,gy,gz" else { return try RecordingCSV.rows(atPath: recorded) }
        return try lines.dropFirst().enumerated().map { number, line in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            guard fields.count == 7 else { throw ValidationError("\(recorded):\(number + 2): expected seven numbers") }
            return RecordingRow(
                session: SessionID(rawValue: "gesture_detect"), activity: .rest, timestamp: fields[0],
                motion: DeviceMotion(values: [Double](repeating: 0, count: DeviceMotion.featureNames.count)),
                rawAcceleration: Vector3(fields[1], fields[2], fields[3]),
                rawRotationRate: Vector3(fields[4], fields[5], fields[6]))
        }
    }

    private func raw(_ row: RecordingRow) -> [Double] {
        [
            row.rawAcceleration.x, row.rawAcceleration.y, row.rawAcceleration.z,
            row.rawRotationRate.x, row.rawRotationRate.y, row.rawRotationRate.z,
        ]
    }

    /// The largest difference of two readings, in steps of the device's quantisation.
    private func steps(_ a: [Double], _ b: [Double]) -> Double {
        (0..<6).map { axis in abs(a[axis] - b[axis]) / (axis < 3 ? accelerationStep : rotationStep * .pi / 180) }.max()!
    }

    private func equal(_ a: [Double], _ b: [Double]) -> Bool { steps(a, b) <= 0.5 }
}
