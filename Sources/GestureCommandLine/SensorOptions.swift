import ArgumentParser
import GestureCore
import GestureSensors
import GestureSimulation

#if canImport(Glibc)
import Glibc
#endif

public struct SensorOptions: ParsableArguments {
    @Option(
        help: """
            The sensor to read, as `gesture devices` lists it: sim for the simulated one, phone for a phone's \
            page, replay:FILE.csv to play a recording back. Without it, the one real sensor found.
            """,
        completion: .custom { _, _, _ in
            DeviceDirectory(profiles: []).available().sensors.map(\.id) + [
                DeviceDirectory.phone.id, DeviceDirectory.replayPrefix,
            ]
        })
    public var device: String?

    @Option(help: "Sampling rate in Hz (default: the device profile's, else 100).")
    public var rate: Double?

    @OptionGroup var profiles: ProfileOptions

    @Option(help: "Seed of the simulated sensor: the same seed gives the same motion.")
    public var seed: UInt64 = 1

    @Option(
        name: .customLong("sim-faults"),
        help: "Mistakes for the simulated sensor to make, e.g. wrong-gesture@2,upside-down,dead-axis@1,dropped.")
    public var simFaults = ""

    @Option(
        name: .customLong("sim-everyday"),
        help: """
            Everyday motion the simulated person makes whenever no gesture is prompted, in bouts chosen by the \
            seed: walk, type, reach, scratch, turn-wrist, pick-up, or all.
            """)
    public var simEveryday = ""

    public init() {}

    public func directory() throws -> DeviceDirectory {
        let faults: SimulatedFaults
        let everyday: [EverydayMotion]
        do {
            faults = try SimulatedFaults(simFaults)
            everyday = try EverydayMotion.list(simEveryday)
        } catch {
            throw Failure.usage(error.description)
        }
        return DeviceDirectory(seed: seed, faults: faults, everyday: everyday, profiles: try profiles.load())
    }

    /// The device `--device` names; without it, the one real sensor found. Never the simulated
    /// sensor unasked: a maker who forgot `--device` would record simulated motion as their own.
    public func deviceID(in directory: DeviceDirectory) throws -> String {
        if let device { return device }
        let (sensors, unreadable) = directory.available()
        let real = sensors.filter { $0.id != SimulatedSensor.id }
        if real.count == 1 { return real[0].id }
        let found = real.isEmpty ? "no sensor found" : "\(real.count) sensors found"
        let closed = unreadable.isEmpty ? "" : " (\(unreadable.joined(separator: ", ")) could not be opened)"
        let choices =
            (real + [sensors.first { $0.id == SimulatedSensor.id }, DeviceDirectory.phone].compactMap { $0 })
            .map { "\($0.id) (\($0.name))" } + ["\(DeviceDirectory.replayPrefix)FILE.csv (a recording played back)"]
        throw Failure.usage(
            "no --device given and \(found)\(closed); pass --device with one of: \(choices.joined(separator: ", "))")
    }

    public func open(holder: UserID, clock: any SamplingClock) throws -> any MotionSensor {
        do {
            let directory = try directory()
            return try directory.open(try deviceID(in: directory), holder: holder, clock: clock)
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

    /// The profile whose file is `name`: `mpu6050` finds `10-mpu6050.profile`, as do `10-mpu6050` and
    /// `10-mpu6050.profile`.
    public func profile(named name: String) throws -> DeviceProfile {
        let profiles = try load()
        func names(_ profile: DeviceProfile) -> [String] {
            let file = String(profile.file.split(separator: "/").last ?? "")
            let stem = String(file.dropLast(".profile".count))
            let unnumbered = stem.drop { $0.isNumber }
            return [file, stem] + (unnumbered.first == "-" ? [String(unnumbered.dropFirst())] : [])
        }
        guard !profiles.isEmpty else {
            throw Failure.usage("--profile \(name): no device profiles found; --profiles DIR names a folder of them")
        }
        guard let profile = profiles.first(where: { names($0).contains(name) }) else {
            let known = profiles.compactMap { names($0).last }.joined(separator: ", ")
            throw Failure.usage("--profile \(name): no such device profile; known: \(known)")
        }
        return profile
    }

    private func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}

public func userID(_ text: String) throws -> UserID {
    do { return try UserID(text) } catch { throw Failure.usage("\(error)") }
}

public func activityLabel(_ text: String) throws -> ActivityLabel {
    do { return try ActivityLabel(text) } catch { throw Failure.usage("\(error)") }
}
