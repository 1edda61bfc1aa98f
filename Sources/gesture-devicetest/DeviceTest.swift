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

/// Motion to inject: accelerometer (g) and gyroscope (rad/s) rows of a CSV with columns
/// ax, ay, az, wx, wy, wz among others (../shared/datasets/seglearn-watch).
struct Motion {
    var rows: [[Double]]

    init(file: String, limit: Int) throws {
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let columns = try ["ax", "ay", "az", "wx", "wy", "wz"].map { name in
            guard let index = header.firstIndex(of: name) else { throw ValidationError("\(file) has no column \(name)") }
            return index
        }
        rows = lines.dropFirst().prefix(limit).map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return columns.map { Double(fields[$0])! }
        }
    }
}

/// What every injecting device is told: the motion, its pace, and where to report.
struct InjectionOptions: ParsableArguments {
    @Option(help: "CSV with ax ay az (g) and wx wy wz (rad/s).") var data: String
    @Option var rate = 50.0
    @Option(help: "At most this many readings.") var frames = 3000
    @Option(help: "Write the injected readings, scaled back to g and rad/s, here.") var injected: String
    @Option(help: "Touched once the device exists.") var readyFile: String
    @Option(help: "Stop and remove the device, as if unplugged, once this file exists.") var stopFile: String
    @Option(help: "Send nothing for a second after this many frames, as a device holding still.") var silenceAfter: Int?

    func announceReady() throws {
        guard FileManager.default.createFile(atPath: readyFile, contents: Data()) else {
            throw ValidationError("cannot create \(readyFile)")
        }
    }

    /// Replays the motion at the rate: `emit` turns a row into device counts and sends them,
    /// `wait` passes the time until a deadline; the readings as the device reports them are saved.
    /// `emit` gets the device counts and the µs since the first reading, as a device's clock would.
    func replay(accelerationStep: Double, rotationStep: Double, emit: ([Int32], UInt32) throws -> Void,
                wait: (Double) throws -> Void) throws {
        let motion = try Motion(file: data, limit: frames)
        var lines = ["ax,ay,az,wx,wy,wz"]
        let first = MonotonicClock().now() + 0.5
        var start = first
        for (index, row) in motion.rows.enumerated() {
            if FileManager.default.fileExists(atPath: stopFile) { break }
            if index == silenceAfter { start += 1 }
            let deadline = start + Double(index) / rate
            try wait(deadline)
            let counts = row.enumerated().map { axis, value in
                Int32((axis < 3 ? value / accelerationStep : value * 180 / .pi / rotationStep).rounded())
            }
            try emit(counts, UInt32(((deadline - first) * 1e6).rounded()))
            lines.append(counts.enumerated().map { axis, count in
                "\(axis < 3 ? Double(count) * accelerationStep : Double(count) * rotationStep * .pi / 180)"
            }.joined(separator: ","))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: injected, atomically: true, encoding: .utf8)
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
            var info = input_absinfo(value: 0, minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: resolution)
            _ = libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(axis), &info)
        }
        _ = libevdev_enable_event_code(device, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), nil)
        var uinput: OpaquePointer?
        let status = libevdev_uinput_create_from_device(device, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &uinput)
        guard status == 0, let uinput else { throw ValidationError("cannot create the uinput device: \(String(cString: strerror(-status)))") }
        defer { libevdev_uinput_destroy(uinput) }
        try injection.announceReady()
        let clock = MonotonicClock()
        try injection.replay(
            accelerationStep: 1 / Double(accelerationResolution), rotationStep: 1 / Double(rotationResolution),
            emit: { counts, microseconds in
                for (axis, code) in Self.axes.enumerated() {
                    _ = libevdev_uinput_write_event(uinput, UInt32(EV_ABS), UInt32(code), counts[axis])
                }
                _ = libevdev_uinput_write_event(uinput, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), Int32(bitPattern: microseconds))
                _ = libevdev_uinput_write_event(uinput, UInt32(EV_SYN), UInt32(SYN_REPORT), 0)
            },
            wait: clock.sleep(until:))
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
        guard hub >= 0 else { throw ValidationError("cannot create the uhid sensor hub: \(String(cString: strerror(-hub)))") }
        defer { sensor_hub_destroy(hub) }
        let clock = MonotonicClock()
        // The drivers ask for reports while they probe: answer until both IIO devices exist.
        let probing = clock.now() + 10
        while clock.now() < probing, !Self.iioDevicesExist(["accel_3d", "gyro_3d"]) {
            _ = sensor_hub_service(hub, 50)
        }
        try injection.announceReady()
        try injection.replay(
            accelerationStep: 0.001, rotationStep: 0.01,
            emit: { counts, _ in
                var acceleration = Array(counts[0..<3]), rotation = Array(counts[3..<6])
                _ = sensor_hub_send(hub, Int32(sensor_hub_accelerometer), &acceleration)
                _ = sensor_hub_send(hub, Int32(sensor_hub_gyrometer), &rotation)
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
            try? String(contentsOfFile: "\(folder)/\($0)/name", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return names.allSatisfy(found.contains)
    }
}

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare the raw columns recorded from a device with what was injected into it.")

    @Option var kind: String
    @Option var injected: String
    @Option var recorded: String
    @Option(help: "The device's acceleration step, g: readings within half a step are equal.") var accelerationStep: Double
    @Option(help: "The device's rotation step, °/s.") var rotationStep: Double

    func run() throws {
        let sent = try Motion(file: injected, limit: .max).rows
        let rows = try RecordingCSV.rows(in: String(contentsOfFile: recorded, encoding: .utf8), file: recorded)
        let got = rows.map { [$0.rawAcceleration.x, $0.rawAcceleration.y, $0.rawAcceleration.z,
                              $0.rawRotationRate.x, $0.rawRotationRate.y, $0.rawRotationRate.z] }
        guard let first = got.first, let offset = sent.firstIndex(where: { equal($0, first) }) else {
            throw ValidationError("\(kind): the first recorded reading was never injected")
        }
        var (next, lost, held, largest) = (offset, 0, 0, 0.0)
        for reading in got {
            // The device sent nothing for a tick, and the source repeated the last reading.
            if next > offset, equal(sent[next - 1], reading), next == sent.count || !equal(sent[next], reading) {
                held += 1
                continue
            }
            while next < sent.count, !equal(sent[next], reading) {
                next += 1
                lost += 1
            }
            guard next < sent.count else { throw ValidationError("\(kind): a recorded reading was never injected, or came out of order") }
            largest = max(largest, steps(sent[next], reading))
            next += 1
        }
        print("\(kind): injected while recording \(next - offset), recorded \(got.count) (\(held) held), lost \(lost), "
              + String(format: "largest difference %.2g of a step", largest))
        if lost > 0 { throw ExitCode.failure }
    }

    /// The largest difference of two readings, in steps of the device's quantisation.
    private func steps(_ a: [Double], _ b: [Double]) -> Double {
        (0..<6).map { axis in abs(a[axis] - b[axis]) / (axis < 3 ? accelerationStep : rotationStep * .pi / 180) }.max()!
    }

    private func equal(_ a: [Double], _ b: [Double]) -> Bool { steps(a, b) <= 0.5 }
}
