import GestureCore
import GestureSensors

/// A phone as the sensor: the readings its page streams to the studio's server (`PhoneLink`), on
/// the host's clock, through the profile of the API the page reads (`PhoneSource`). A page sends
/// its readings as the browser gives them, so they are resampled onto the output rate as an input
/// device's are (`ReportOnChangeResampler`): readings keep the phone's times, a silence is held,
/// and a batch may come as late as a network's hiccup (`DeliveryDelay.overNetwork`).
/// A page that goes away (closed, asleep, off the network) ends the readings as an unplugged
/// device does.
public final class PhoneSensor: MotionSensor, @unchecked Sendable {
    public static let id = DeviceDirectory.phone.id

    public let info: SensorInfo
    public var pacing: SensorPacing { .deviceTimed }
    public let link: PhoneLink
    public var lostReadings: Int { resampler?.lateFrames ?? 0 }
    /// Output samples that repeat the last reading over a silence of the phone.
    public var heldSamples: Int { resampler?.heldCount ?? 0 }

    private var resampler: ReportOnChangeResampler?
    private var ready: [RawSample] = []
    private var reading = false

    /// The phone whose page streams through `link` by `source`.
    public init(link: PhoneLink, source: PhoneSource) {
        self.link = link
        info = SensorInfo(id: Self.id, name: source.name, maximumRate: 1000, location: "the phone's page")
    }

    public func start(rate: Double) throws(SensorError) -> Double {
        try validate(rate: rate)
        resampler = ReportOnChangeResampler(rate: rate, allowance: DeliveryDelay.overNetwork)
        return rate
    }

    public func stop() {
        guard reading else { return }
        link.endReading()
        reading = false
    }

    /// The next sample at the output rate, or nil when none is due yet.
    public func read(now: Double) throws(SensorError) -> RawSample? {
        if !reading {
            link.beginReading()
            reading = true
        }
        while ready.isEmpty {
            let readings: [RawSample]
            do {
                readings = try link.readings(waitingUpTo: resampler.map { $0.period / 2 } ?? 0.1)
            } catch {
                throw SensorError(
                    device: info.id,
                    reason:
                        "the phone's page stopped delivering (\(error.reason)); was it closed, locked or off the network?"
                )
            }
            guard !readings.isEmpty else {
                ready += resampler?.quiet(until: MonotonicClock().now()) ?? []
                return ready.isEmpty ? nil : ready.removeFirst()
            }
            for reading in readings { ready += resampler?.frame(reading) ?? [reading] }
        }
        return ready.removeFirst()
    }
}
