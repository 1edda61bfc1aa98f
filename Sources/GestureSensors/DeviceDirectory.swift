import GestureCore

/// Finds the sensors there are and opens one by the ID `--device` names.
public struct DeviceDirectory: Sendable {
    /// Options for the simulated sensor.
    public var seed: UInt64
    public var faults: SimulatedFaults

    public init(seed: UInt64 = 1, faults: SimulatedFaults = .none) {
        self.seed = seed
        self.faults = faults
    }

    /// The sensors found, the simulated one first, and the device nodes that could not be opened.
    public func available() -> (sensors: [SensorInfo], unreadable: [String]) {
        let evdev = EvdevDiscovery.motionDevices()
        let found = evdev.found.map { SensorInfo(id: $0.id, name: $0.name, maximumRate: 1000, location: $0.path) }
        return ([SimulatedSensor(seed: seed, holder: Self.anyone).info] + IIOSensor.available() + found, evdev.unreadable)
    }

    /// The sensor `id` names, held by `holder`; a replay plays on `clock`.
    public func open(_ id: String, holder: UserID, clock: any SamplingClock) throws(SensorError) -> any MotionSensor {
        if id == SimulatedSensor.id {
            return SimulatedSensor(seed: seed, holder: holder, faults: faults)
        }
        if id.hasPrefix(EvdevDiscovery.prefix), let found = EvdevDiscovery.motionDevices().found.first(where: { $0.id == id }) {
            return try EvdevSensor(path: found.path, id: id)
        }
        if id.hasPrefix(IIOMotionDevices.prefix) {
            return try IIOSensor(id: id)
        }
        if id.hasPrefix(Self.replayPrefix) {
            return try ReplaySensor(file: String(id.dropFirst(Self.replayPrefix.count)), clock: clock)
        }
        let known = available().sensors.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        throw SensorError(device: id, reason: "no such device; devices here: \(known), or \(Self.replayPrefix)FILE.csv")
    }

    /// `--device replay:FILE.csv` plays a recording back.
    public static let replayPrefix = "replay:"

    private static let anyone = try! UserID("anyone")
}
