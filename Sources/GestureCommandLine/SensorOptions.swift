import ArgumentParser
import Foundation
import GestureCore
import GestureSensors
import GestureSimulation

public struct SensorOptions: ParsableArguments {
    @Option(
        help: "The sensor to read, as `gesture devices` lists it, or replay:FILE.csv to play a recording back.",
        completion: .custom { _, _, _ in
            DeviceDirectory(profiles: []).available().sensors.map(\.id) + [DeviceDirectory.replayPrefix]
        })
    public var device = SimulatedSensor.id

    @Option(help: "Sampling rate in Hz (default: the device profile's, else 100).")
    public var rate: Double?

    @OptionGroup var profiles: ProfileOptions

    @Option(help: "Seed of the simulated sensor: the same seed gives the same motion.")
    public var seed: UInt64 = 1

    @Option(
        name: .customLong("sim-faults"),
        help: "Mistakes for the simulated sensor to make, e.g. wrong-gesture@2,upside-down,dead-axis@1,dropped.")
    public var simFaults = ""

    public init() {}

    public func directory() throws -> DeviceDirectory {
        let faults: SimulatedFaults
        do {
            faults = try SimulatedFaults(simFaults)
        } catch {
            throw Failure.usage(error.description)
        }
        return DeviceDirectory(seed: seed, faults: faults, profiles: try profiles.load())
    }

    public func open(holder: UserID, clock: any SamplingClock) throws -> any MotionSensor {
        do {
            return try directory().open(device, holder: holder, clock: clock)
        } catch let error as SensorError {
            throw Failure.usage(error.description)
        }
    }

    /// The rate asked for, else the device profile's, else 100 Hz.
    public func rate(for sensor: any MotionSensor) -> Double {
        rate ?? (sensor as? ProfiledSensor)?.profile.rate ?? 100
    }
}

public struct ProfileOptions: ParsableArguments {
    @Option(
        name: .customLong("profiles"),
        help: """
            The folder of device profiles; without it, those of ~/.config/gesturelab/devices, \
            <prefix>/share/gesturelab/devices and ./devices that exist, the first match winning.
            """)
    public var folder: String?

    public init() {}

    /// The folders profiles are read from: the one given, or those of the search path that exist.
    public func folders() throws -> [String] {
        guard let folder else { return DeviceProfile.searchPath().filter(isFolder) }
        guard isFolder(folder) else { throw Failure.usage("no device profiles folder at \(folder)") }
        return [folder]
    }

    public func load() throws -> [DeviceProfile] {
        do {
            return try folders().flatMap { folder throws(ProfileError) in try DeviceProfile.load(from: folder) }
        } catch let error as ProfileError {
            throw Failure.usage(error.description)
        }
    }

    private func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

public func userID(_ text: String) throws -> UserID {
    do { return try UserID(text) } catch { throw Failure.usage("\(error)") }
}

public func activityLabel(_ text: String) throws -> ActivityLabel {
    do { return try ActivityLabel(text) } catch { throw Failure.usage("\(error)") }
}
