import GestureCore
import GestureSimulation

/// Finds the sensors there are and opens one by the ID `--device` names.
public struct DeviceDirectory: Sendable {
    /// Options for the simulated sensor.
    public var seed: UInt64
    public var faults: SimulatedFaults
    public var everyday: [EverydayMotion]
    /// How to read the real devices, from devices/.
    public var profiles: [DeviceProfile]

    public init(
        seed: UInt64 = 1, faults: SimulatedFaults = .none, everyday: [EverydayMotion] = [],
        profiles: [DeviceProfile] = []
    ) {
        self.seed = seed
        self.faults = faults
        self.everyday = everyday
        self.profiles = profiles
    }

    /// The ranges of the devices whose range is known, by the ID recordings name them with: what
    /// cleaning checks for clipping.
    public static let knownRanges = [SimulatedSensor.id: SimulatedSensor.range]

    /// The profile a device is read through, if one matches: one found in a folder, else one built in.
    public func profile(for sensor: SensorInfo) -> DeviceProfile? {
        (profiles + Self.builtInProfiles).first { $0.matches(sensor) }
    }

    /// The profiles that need no folder: the phone's, whose page is served by `gesture` wherever it runs.
    public static let builtInProfiles = [
        try! DeviceProfile(
            text: """
                # Browsers deliver about 60 readings a second, so 60 Hz records each one without held rows.
                # Units and each browser's signs are mapped before a profile applies (docs/studio.md); a
                # profile of your own matching `phone` replaces this one, for a phone held in an unusual way.
                name = A phone's page (built in)
                match = phone
                rate = 60
                """, file: "built in")
    ]

    /// The sensors found, the simulated one first, and the device nodes that could not be opened.
    public func available() -> (sensors: [SensorInfo], unreadable: [String]) {
        let evdev = EvdevDiscovery.motionDevices()
        let found = evdev.found.map { SensorInfo(id: $0.id, name: $0.name, maximumRate: 1000, location: $0.path) }
        return (
            [SimulatedSensor(seed: seed, holder: Self.anyone).info] + IIOSensor.available() + found, evdev.unreadable
        )
    }

    /// The sensor `id` names, held by `holder`; a replay plays on `clock`.
    public func open(_ id: String, holder: UserID, clock: any SamplingClock) throws(SensorError) -> any MotionSensor {
        if id == SimulatedSensor.id {
            return SimulatedSensor(seed: seed, holder: holder, faults: faults, everyday: everyday)
        }
        if id.hasPrefix(EvdevDiscovery.prefix),
            let found = EvdevDiscovery.motionDevices().found.first(where: { $0.id == id })
        {
            return profiled(try EvdevSensor(path: found.path, id: id), mounting: true)
        }
        if id.hasPrefix(IIOMotionDevices.prefix) {
            let info = IIOSensor.available().first { $0.id == id }
            let profile = info.flatMap(profile(for:))
            return profiled(try IIOSensor(id: id, mountMatrix: profile?.mountMatrix), mounting: false)
        }
        if id.hasPrefix(Self.replayPrefix) {
            return try ReplaySensor(file: String(id.dropFirst(Self.replayPrefix.count)), clock: clock)
        }
        let (sensors, unreadable) = available()
        let known = sensors.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        let closed =
            unreadable.isEmpty
            ? ""
            : "; \(unreadable.joined(separator: ", ")) could not be opened: if one is the sensor, \(EvdevSensor.accessAdvice)"
        throw SensorError(
            device: id,
            reason: "no such device; devices here: \(known), \(Self.phone.id), or \(Self.replayPrefix)FILE.csv\(closed)"
        )
    }

    /// The sensor through its profile; `mounting` when the profile's mount matrix is applied
    /// outside the sensor.
    public func profiled(_ sensor: any MotionSensor, mounting: Bool) -> any MotionSensor {
        profile(for: sensor.info).map { ProfiledSensor(sensor, profile: $0, mounting: mounting) } ?? sensor
    }

    /// `--device phone`: a phone's page, served by the studio, which `gesture` opens itself.
    public static let phone = SensorInfo(
        id: "phone", name: "a phone's page, served by gesture", maximumRate: 100, location: "browser")

    /// `--device replay:FILE.csv` plays a recording back.
    public static let replayPrefix = "replay:"

    private static let anyone = try! UserID("anyone")
}
