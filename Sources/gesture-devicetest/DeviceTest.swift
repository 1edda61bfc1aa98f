import ArgumentParser
import CLibEvdev
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
        subcommands: [UinputDevice.self, Compare.self])
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

struct UinputDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uinput",
        abstract: "Create an accelerometer + gyroscope input device and replay motion through it.")

    @Option var name = "GestureLab VM IMU"
    @Option(help: "CSV with ax ay az (g) and wx wy wz (rad/s).") var data: String
    @Option var rate = 50.0
    @Option var frames = 1000
    @Option(help: "Units per g of ABS_X/Y/Z.") var accelerationResolution: Int32 = 1024
    @Option(help: "Units per °/s of ABS_RX/RY/RZ.") var rotationResolution: Int32 = 16
    @Option(help: "Write the injected readings, scaled back to g and rad/s, here.") var injected: String
    @Option(help: "Touched once the device exists.") var readyFile: String
    @Option(help: "Destroy the device after this many frames, as if unplugged.") var destroyAfter: Int?

    func run() throws {
        let motion = try Motion(file: data, limit: frames)
        let device = libevdev_new()!
        defer { libevdev_free(device) }
        libevdev_set_name(device, name)
        _ = libevdev_enable_property(device, UInt32(INPUT_PROP_ACCELEROMETER))
        for (index, axis) in [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].enumerated() {
            let resolution = index < 3 ? accelerationResolution : rotationResolution
            var info = input_absinfo(value: 0, minimum: -32768, maximum: 32767, fuzz: 0, flat: 0, resolution: resolution)
            _ = libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(axis), &info)
        }
        _ = libevdev_enable_event_code(device, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), nil)
        var uinput: OpaquePointer?
        let status = libevdev_uinput_create_from_device(device, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &uinput)
        guard status == 0, let uinput else { throw ValidationError("cannot create the uinput device: \(String(cString: strerror(-status)))") }
        guard FileManager.default.createFile(atPath: readyFile, contents: Data()) else {
            throw ValidationError("cannot create \(readyFile)")
        }
        try inject(motion, through: uinput)
        libevdev_uinput_destroy(uinput)
    }

    private func inject(_ motion: Motion, through uinput: OpaquePointer) throws {
        var lines = ["ax,ay,az,wx,wy,wz"]
        let clock = MonotonicClock()
        let start = clock.now() + 0.5
        for (index, row) in motion.rows.enumerated() {
            if index == destroyAfter { break }
            clock.sleep(until: start + Double(index) / rate)
            let units = row.enumerated().map { axis, value in
                Int32((axis < 3 ? value * Double(accelerationResolution) : value * 180 / .pi * Double(rotationResolution)).rounded())
            }
            for (axis, code) in [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].enumerated() {
                _ = libevdev_uinput_write_event(uinput, UInt32(EV_ABS), UInt32(code), units[axis])
            }
            _ = libevdev_uinput_write_event(uinput, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), Int32(truncatingIfNeeded: index * Int(1e6 / rate)))
            _ = libevdev_uinput_write_event(uinput, UInt32(EV_SYN), UInt32(SYN_REPORT), 0)
            lines.append(units.enumerated().map { axis, unit in
                "\(axis < 3 ? Double(unit) / Double(accelerationResolution) : Double(unit) / Double(rotationResolution) * .pi / 180)"
            }.joined(separator: ","))
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: injected, atomically: true, encoding: .utf8)
    }
}

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare the raw columns recorded from a device with what was injected into it.")

    @Option var kind: String
    @Option var injected: String
    @Option var recorded: String

    func run() throws {
        let sent = try Motion(file: injected, limit: .max).rows
        let rows = try RecordingCSV.rows(in: String(contentsOfFile: recorded, encoding: .utf8), file: recorded)
        let got = rows.map { [$0.rawAcceleration.x, $0.rawAcceleration.y, $0.rawAcceleration.z,
                              $0.rawRotationRate.x, $0.rawRotationRate.y, $0.rawRotationRate.z] }
        guard let first = got.first, let offset = sent.firstIndex(where: { difference($0, first) < 1e-9 }) else {
            throw ValidationError("\(kind): the first recorded reading was never injected")
        }
        var (next, lost, largest) = (offset, 0, 0.0)
        for reading in got {
            while next < sent.count, difference(sent[next], reading) > 1e-9 {
                next += 1
                lost += 1
            }
            guard next < sent.count else { throw ValidationError("\(kind): a recorded reading was never injected, or came out of order") }
            largest = max(largest, difference(sent[next], reading))
            next += 1
        }
        print("\(kind): injected while recording \(next - offset), recorded \(got.count), lost \(lost), largest difference \(largest)")
        if lost > 0 { throw ExitCode.failure }
    }

    private func difference(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).map { abs($0 - $1) }.max()!
    }
}
