import CLibIIO
import FoundationEssentials
import GestureCore

#if canImport(Glibc)
import Glibc
#endif

/// An Industrial I/O accelerometer and gyroscope read through libiio's local context: one device
/// with both (an MPU-6050, a BMI160), or two devices taken together (HID sensors' accel_3d and
/// gyro_3d), their samples paired by timestamp.
///
/// Samples come from the kernel's buffer, paced by the device's own trigger and timed by its scans'
/// timestamps: the kernel's, on CLOCK_MONOTONIC, or a sensor hub's own, anchored to it. A device
/// without a usable buffer is polled through sysfs instead, and `warnings` says that its timing
/// will jitter.
public final class IIOSensor: MotionSensor, @unchecked Sendable {
    public let info: SensorInfo
    public private(set) var pacing: SensorPacing = .deviceTimed
    public private(set) var warnings: [String] = []

    private let context: OpaquePointer
    private let pair: IIOMotionDevices.Pair
    private var acceleration: IIOStream?
    private var rotation: IIOStream?
    private var period = 0.01
    private var paired = false
    private var scanClock = ScanClock()
    public private(set) var lostReadings = 0

    /// - Parameter mountMatrix: replaces the mounting the kernel reports.
    public init(id: String, mountMatrix: [[Double]]? = nil) throws(SensorError) {
        guard let context = iio_create_local_context() else {
            throw SensorError(device: id, reason: "cannot read the IIO devices: \(String(cString: strerror(errno)))")
        }
        guard var pair = IIOMotionDevices(context: context).pairs.first(where: { $0.id == id }) else {
            iio_context_destroy(context)
            throw SensorError(device: id, reason: "no such IIO device")
        }
        if let mountMatrix {
            pair.acceleration.mount = mountMatrix
            pair.rotationRate?.mount = mountMatrix
        }
        self.context = context
        self.pair = pair
        info = SensorInfo(
            id: id, name: pair.id.dropFirst(IIOMotionDevices.prefix.count).description,
            maximumRate: 1000, location: "/dev/\(String(cString: iio_device_get_id(pair.acceleration.device)))")
    }

    deinit {
        stop()
        iio_context_destroy(context)
    }

    /// The IIO accelerometers (with their gyroscopes) of this machine.
    static func available() -> [SensorInfo] {
        guard let context = iio_create_local_context() else { return [] }
        defer { iio_context_destroy(context) }
        return IIOMotionDevices(context: context).pairs.map { pair in
            SensorInfo(
                id: pair.id,
                name: pair.id.dropFirst(IIOMotionDevices.prefix.count).description
                    + (pair.rotationRate == nil ? " (no gyroscope)" : ""),
                maximumRate: 1000, location: "/dev/\(String(cString: iio_device_get_id(pair.acceleration.device)))")
        }
    }

    /// Sets the rate nearest to `rate` that the devices offer and returns the one they run at.
    public func start(rate: Double) throws(SensorError) -> Double {
        try validate(rate: rate)
        var actual = rate
        for triple in [pair.acceleration, pair.rotationRate].compactMap({ $0 }) {
            _ = iio_device_attr_write(triple.device, "current_timestamp_clock", "monotonic")
            actual = try setSamplingFrequency(rate, on: triple) ?? actual
        }
        period = 1 / actual
        scanClock = ScanClock()
        do {
            acceleration = try IIOStream(
                pair.acceleration, with: pair.rotationRate?.device == pair.acceleration.device ? pair.rotationRate : nil
            )
            if let gyro = pair.rotationRate, gyro.device != pair.acceleration.device {
                rotation = try IIOStream(gyro, with: nil)
            }
        } catch {
            acceleration = nil
            rotation = nil
            pacing = .polled
            warnings.append("\(info.id): \(error.reason); reading sysfs instead, so timing will jitter")
        }
        return actual
    }

    public func stop() {
        acceleration = nil
        rotation = nil
    }

    /// The next scan; from two devices, the next accelerometer scan with the gyroscope scan nearest
    /// to it within a period, taken in order, so that two devices whose scans are out of phase
    /// still pair one to one. One without a partner is skipped: before the first pair, because the
    /// two buffers started at different times; after it, as a lost reading.
    public func read(now: Double) throws(SensorError) -> RawSample? {
        guard let acceleration else { return try poll(now: now) }
        while let scan = try acceleration.next(timeout: 0.1) {
            guard let rotation else {
                return RawSample(
                    time: time(of: scan), acceleration: scan.acceleration ?? .zero,
                    rotationRate: scan.rotationRate ?? .zero)
            }
            if let partner = try rotation.nearest(to: scan.time, within: period, waitingUpTo: DeliveryDelay.allowance) {
                paired = true
                return RawSample(
                    time: time(of: scan), acceleration: scan.acceleration ?? .zero,
                    rotationRate: partner.rotationRate ?? .zero)
            }
            if paired { lostReadings += 1 }
        }
        return nil
    }

    private func time(of scan: IIOStream.Scan) -> Double {
        scanClock.time(of: scan.time, arrivedAt: MonotonicClock().now())
    }

    /// The sysfs fallback: each channel's raw value read now.
    private func poll(now: Double) throws(SensorError) -> RawSample? {
        func read(_ triple: IIOTriple?) throws(SensorError) -> Vector3 {
            guard let triple else { return .zero }
            var raw: [Double] = []
            for channel in triple.channels {
                var value: Int64 = 0
                let status = iio_channel_attr_read_longlong(channel, "raw", &value)
                guard status == 0 else { throw gone(-status) }
                raw.append(Double(value))
            }
            return triple.convert(raw)
        }
        return RawSample(
            time: now, acceleration: try read(pair.acceleration), rotationRate: try read(pair.rotationRate))
    }

    private func gone(_ code: Int32) -> SensorError {
        SensorError(
            device: info.id, reason: "stopped delivering (\(String(cString: strerror(code)))); was it unplugged?")
    }

    /// Sets the nearest rate the device offers; a rate above all of them is an error.
    private func setSamplingFrequency(_ rate: Double, on triple: IIOTriple) throws(SensorError) -> Double? {
        let channel = triple.channels[0]
        let offered =
            IIOTriple.text(channel, "sampling_frequency_available")
            ?? IIOTriple.text(device: triple.device, "sampling_frequency_available")
        let available = offered?.split(separator: " ").compactMap { Double($0) } ?? []
        if let fastest = available.max(), rate > fastest * 1.01 {
            let rates = available.map(\.shortText).joined(separator: ", ")
            throw SensorError(
                device: info.id,
                reason: "\(triple.deviceName) cannot sample at \(rate.shortText) Hz; it can do \(rates) Hz")
        }
        let chosen = available.min { abs($0 - rate) < abs($1 - rate) } ?? rate
        _ = iio_channel_attr_write_double(channel, "sampling_frequency", chosen)
        return IIOTriple.attribute(channel, "sampling_frequency").flatMap { $0 > 0 ? $0 : nil }
    }
}

/// One device's buffered capture: its own trigger, its channels and timestamp enabled, each
/// refill decoded into scans.
final class IIOStream {
    struct Scan {
        var time: Double
        var acceleration: Vector3?
        var rotationRate: Vector3?
    }

    struct Failure: Error { var reason: String }

    private let primary: IIOTriple
    private let secondary: IIOTriple?
    private let timestamp: OpaquePointer
    private let buffer: OpaquePointer
    private var pending: [Scan] = []

    init(_ primary: IIOTriple, with secondary: IIOTriple?) throws(Failure) {
        let device = primary.device
        guard let timestamp = iio_device_find_channel(device, "timestamp", false) else {
            throw Failure(reason: "\(primary.deviceName) has no timestamp channel")
        }
        let name = primary.deviceName
        let triggers = (0..<iio_context_get_devices_count(iio_device_get_context(device)))
            .compactMap { iio_context_get_device(iio_device_get_context(device), $0) }
            .filter { iio_device_is_trigger($0) && String(cString: iio_device_get_name($0)).hasPrefix(name + "-") }
        guard let trigger = triggers.first, iio_device_set_trigger(device, trigger) == 0 else {
            throw Failure(reason: "\(name) has no trigger of its own")
        }
        for channel in primary.channels + (secondary?.channels ?? []) + [timestamp] { iio_channel_enable(channel) }
        guard let buffer = iio_device_create_buffer(device, 1, false) else {
            let code = errno
            let advice =
                code == EACCES ? "; give your user access to /dev/iio:device* (a udev rule, see docs/sensors.md)" : ""
            throw Failure(reason: "cannot open \(name)'s buffer: \(String(cString: strerror(code)))\(advice)")
        }
        _ = iio_buffer_set_blocking_mode(buffer, false)
        self.primary = primary
        self.secondary = secondary
        self.timestamp = timestamp
        self.buffer = buffer
    }

    deinit {
        iio_buffer_destroy(buffer)
        _ = iio_device_set_trigger(primary.device, nil)
    }

    /// The next scan, or nil when none came within `timeout` seconds.
    func next(timeout: Double) throws(SensorError) -> Scan? {
        if pending.isEmpty { try refill(timeout: timeout) }
        return pending.isEmpty ? nil : pending.removeFirst()
    }

    /// The scan nearest to `time` within `tolerance`, once one not older than `time − tolerance`
    /// has come (waiting up to `patience` seconds for it: the other device's report may be
    /// delivered later); it and the scans before it are used up. Nil when none is that near: later
    /// scans stay for later times.
    func nearest(to time: Double, within tolerance: Double, waitingUpTo patience: Double) throws(SensorError) -> Scan? {
        let clock = MonotonicClock()
        let deadline = clock.now() + patience
        while !pending.contains(where: { $0.time >= time - tolerance }), case let left = deadline - clock.now(),
            left > 0
        {
            try refill(timeout: left)
        }
        return Self.take(nearest: time, within: tolerance, from: &pending)
    }

    /// The scan of `scans` (in time order) nearest to `time` within `tolerance`; it and the scans
    /// before it are removed, and so are those too old for `time`.
    static func take(nearest time: Double, within tolerance: Double, from scans: inout [Scan]) -> Scan? {
        scans.removeAll { $0.time < time - tolerance }
        let near = scans.prefix { $0.time <= time + tolerance }
        guard let best = near.indices.min(by: { abs(near[$0].time - time) < abs(near[$1].time - time) }) else {
            return nil
        }
        let scan = scans[best]
        scans.removeFirst(best + 1)
        return scan
    }

    private func refill(timeout: Double) throws(SensorError) {
        var waiting = pollfd(fd: iio_buffer_get_poll_fd(buffer), events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, Int32(max(1, (timeout * 1000).rounded(.up)))) > 0 else {
            // A removed device's buffer just goes quiet; its sysfs folder is what disappears.
            if access("/sys/bus/iio/devices/\(String(cString: iio_device_get_id(primary.device)))", F_OK) != 0 {
                throw gone(ENODEV)
            }
            return
        }
        if waiting.revents & Int16(POLLERR | POLLHUP) != 0 { throw gone(ENODEV) }
        let count = iio_buffer_refill(buffer)
        if count == -EAGAIN { return }
        guard count > 0 else { throw gone(Int32(-count)) }
        pending += decode()
    }

    private func gone(_ code: Int32) -> SensorError {
        SensorError(
            device: IIOMotionDevices.prefix + primary.deviceName,
            reason: "stopped delivering (\(String(cString: strerror(code)))); was it unplugged?")
    }

    private func decode() -> [Scan] {
        let step = iio_buffer_step(buffer)
        guard step > 0, let start = iio_buffer_start(buffer), let end = iio_buffer_end(buffer) else { return [] }
        let count = (end - start) / step
        return (0..<count).map { index in
            func values(_ triple: IIOTriple?) -> Vector3? {
                triple.map { $0.convert($0.channels.map { Double(value(of: $0, scan: index, step: step)) }) }
            }
            let time = Double(value(of: timestamp, scan: index, step: step)) * 1e-9
            return primary.kind == .acceleration
                ? Scan(time: time, acceleration: values(primary), rotationRate: values(secondary))
                : Scan(time: time, acceleration: nil, rotationRate: values(primary))
        }
    }

    private func value(of channel: OpaquePointer, scan: Int, step: Int) -> Int64 {
        Self.decode(channel, at: iio_buffer_first(buffer, channel)! + scan * step)
    }

    /// A channel's value as stored in a scan, converted by libiio to host byte order and
    /// sign-extended to 64 bits.
    static func decode(_ channel: OpaquePointer, at source: UnsafeRawPointer) -> Int64 {
        let format = iio_channel_get_data_format(channel)!.pointee
        var converted: Int64 = 0
        withUnsafeMutableBytes(of: &converted) { iio_channel_convert(channel, $0.baseAddress, source) }
        switch (format.length, format.is_signed) {
        case (8, true): return Int64(Int8(truncatingIfNeeded: converted))
        case (8, false): return Int64(UInt8(truncatingIfNeeded: converted))
        case (16, true): return Int64(Int16(truncatingIfNeeded: converted))
        case (16, false): return Int64(UInt16(truncatingIfNeeded: converted))
        case (32, true): return Int64(Int32(truncatingIfNeeded: converted))
        case (32, false): return Int64(UInt32(truncatingIfNeeded: converted))
        default: return converted
        }
    }
}
