import ArgumentParser
import GestureCommandLine
import GestureCore
import GestureSensors
import GestureSimulation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the accelerometers and gyroscopes found.")

    @Flag(help: "One JSON object per device, per line.") var json = false
    @OptionGroup var profiles: ProfileOptions

    func run() throws {
        let folders = try profiles.folders()
        let directory = DeviceDirectory(profiles: try profiles.load())
        let (found, unreadable) = directory.available()
        let devices = found + [DeviceDirectory.phone]
        Terminal.note(
            folders.isEmpty
                ? "no device profile folders (none of \(DeviceProfile.searchPath().joined(separator: ", "))): "
                    + "only the built-in profile of the phone's page"
                : "device profiles from \(folders.joined(separator: ", "))")
        for path in unreadable {
            Terminal.warn("cannot open \(path); if it is a sensor, \(EvdevSensor.accessAdvice)")
        }
        if found.allSatisfy({ $0.id == SimulatedSensor.id }) && unreadable.isEmpty {
            Terminal.note(
                "no accelerometer or gyroscope found: looked in /sys/bus/iio/devices for IIO devices with "
                    + "accel_x/y/z channels, and in /dev/input for input devices with ABS_X/Y/Z and ABS_RX/RY/RZ axes; "
                    + "is the sensor's kernel driver loaded (dmesg, lsmod)? See docs/sensors.md; "
                    + "meanwhile --device sim reads the simulated sensor, --device phone a phone's")
        }
        if json {
            for device in devices {
                Terminal.say(
                    try jsonLine(
                        DeviceEntry(
                            id: device.id, name: device.name, maximumRate: device.maximumRate,
                            location: device.location, profile: directory.profile(for: device)?.file)))
            }
        } else {
            Terminal.say(
                Summary.table(
                    header: ["id", "name", "max rate Hz", "location", "profile"],
                    rows: devices.map {
                        [
                            $0.id, $0.name, $0.maximumRate.shortText, $0.location,
                            directory.profile(for: $0)?.file ?? "-",
                        ]
                    }))
        }
    }
}

/// A device as `gesture devices --json` gives it.
private struct DeviceEntry: Encodable {
    var id: String
    var name: String
    var maximumRate: Double
    var location: String
    var profile: String?
}
