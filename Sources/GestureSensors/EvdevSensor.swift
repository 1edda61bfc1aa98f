import CLibEvdev
import FoundationEssentials
import GestureCore

#if canImport(Glibc)
import Glibc
#endif

/// An accelerometer and gyroscope behind a Linux input device, read through libevdev: a game
/// controller's motion node, or a phone's or laptop's accelerometer. ABS_X/Y/Z carry acceleration
/// in units per g (their resolution) and ABS_RX/RY/RZ angular velocity in units per °/s.
///
/// Each frame, delimited by SYN_REPORT, is a reading with the kernel's timestamp on
/// CLOCK_MONOTONIC, or the device's own (MSC_TIMESTAMP) when it sends one; an axis that did not
/// change keeps its last value. Input devices report on
/// change, so the frames are resampled onto the output rate (`ReportOnChangeResampler`): frames
/// keep their timestamps, a quiet device is held. A SYN_DROPPED is resynchronised and counted.
public final class EvdevSensor: MotionSensor, @unchecked Sendable {
    public let info: SensorInfo
    public var pacing: SensorPacing { .deviceTimed }
    public let path: String
    /// Times the kernel dropped frames because they were not read in time (each at least one).
    public private(set) var droppedFrames = 0
    public var lostReadings: Int { droppedFrames + (resampler?.lateFrames ?? 0) }

    private let descriptor: Int32
    private let device: OpaquePointer
    private var state: [Int32]
    private let scale: [Double]
    private var resampler: ReportOnChangeResampler?
    private var ready: [RawSample] = []
    private var deviceClock = DeviceClock()
    private var frameStamp: UInt32?
    private var reading = false

    static let axes = [ABS_X, ABS_Y, ABS_Z, ABS_RX, ABS_RY, ABS_RZ].map { UInt32($0) }

    public init(path: String, id: String) throws(SensorError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.openError(path: path, id: id, errno: errno) }
        var handle: OpaquePointer?
        let status = libevdev_new_from_fd(descriptor, &handle)
        guard status == 0, let handle else {
            close(descriptor)
            throw SensorError(
                device: id,
                reason: "\(path) is not an input device libevdev can read (\(String(cString: strerror(-status))))")
        }
        device = handle
        let name = String(cString: libevdev_get_name(handle))
        guard Self.isMotionDevice(handle) else {
            libevdev_free(handle)
            close(descriptor)
            throw SensorError(
                device: id, reason: "\(path) (\(name)) has no ABS_X/Y/Z accelerometer and ABS_RX/RY/RZ gyroscope axes")
        }
        _ = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        state = Self.axes.map { libevdev_get_event_value(handle, UInt32(EV_ABS), $0) }
        scale = Self.axes.enumerated().map { index, axis in
            let resolution = Double(max(1, libevdev_get_abs_resolution(handle, axis)))
            return index < 3 ? 1 / resolution : Double.pi / 180 / resolution
        }
        info = SensorInfo(id: id, name: name, maximumRate: 1000)
    }

    deinit {
        libevdev_free(device)
        close(descriptor)
    }

    /// Whether an input device has the axes of an accelerometer and gyroscope.
    static func isMotionDevice(_ device: OpaquePointer) -> Bool {
        axes.allSatisfy { libevdev_has_event_code(device, UInt32(EV_ABS), $0) == 1 }
    }

    public func start(rate: Double) throws(SensorError) -> Double {
        try validate(rate: rate)
        resampler = ReportOnChangeResampler(rate: rate)
        return rate
    }

    public func stop() {}

    /// The next sample at the output rate, or nil when none is due yet.
    public func read(now: Double) throws(SensorError) -> RawSample? {
        if !reading { try discardQueuedFrames() }
        while ready.isEmpty {
            guard let frame = try nextFrame(timeout: resampler.map { $0.period / 2 } ?? 0.1) else {
                ready += resampler?.quiet(until: MonotonicClock().now()) ?? []
                return ready.isEmpty ? nil : ready.removeFirst()
            }
            ready += resampler?.frame(frame) ?? [frame]
        }
        return ready.removeFirst()
    }

    /// Frames queued since the device was opened are older than the first read: they are read
    /// away, and so is any overrun they caused while nobody read.
    private func discardQueuedFrames() throws(SensorError) {
        while try nextFrame(timeout: 0) != nil {}
        droppedFrames = 0
        reading = true
    }

    /// The next frame, or nil when none came within `timeout` seconds.
    private func nextFrame(timeout: Double) throws(SensorError) -> RawSample? {
        var event = input_event()
        while true {
            var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
            var status = libevdev_next_event(device, flags, &event)
            if status == -EAGAIN {
                var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&waiting, 1, Int32(max(1, timeout * 1000))) > 0 else { return nil }
                if waiting.revents & Int16(POLLHUP | POLLERR) != 0 { throw disappeared(ENODEV) }
                continue
            }
            if status == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                droppedFrames += 1
                flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
                repeat {
                    status = libevdev_next_event(device, flags, &event)
                } while status == LIBEVDEV_READ_STATUS_SYNC.rawValue
                state = Self.axes.map { libevdev_get_event_value(device, UInt32(EV_ABS), $0) }
                continue
            }
            guard status == LIBEVDEV_READ_STATUS_SUCCESS.rawValue else { throw disappeared(-status) }
            if event.type == UInt16(EV_ABS), let axis = Self.axes.firstIndex(of: UInt32(event.code)) {
                state[axis] = event.value
            } else if event.type == UInt16(EV_MSC), event.code == UInt16(MSC_TIMESTAMP) {
                frameStamp = UInt32(bitPattern: event.value)
            } else if event.type == UInt16(EV_SYN), event.code == UInt16(SYN_REPORT) {
                let kernelTime = Double(event.time.tv_sec) + Double(event.time.tv_usec) * 1e-6
                defer { frameStamp = nil }
                return sample(at: frameStamp.map { deviceClock.time(of: $0, arrivedAt: kernelTime) } ?? kernelTime)
            }
        }
    }

    private func sample(at time: Double) -> RawSample {
        let values = zip(state, scale).map { Double($0) * $1 }
        return RawSample(
            time: time, acceleration: Vector3(values[0], values[1], values[2]),
            rotationRate: Vector3(values[3], values[4], values[5]))
    }

    private func disappeared(_ code: Int32) -> SensorError {
        SensorError(
            device: info.id,
            reason: "\(path) stopped delivering (\(String(cString: strerror(code)))); was it unplugged?")
    }

    /// What to do when /dev/input's nodes cannot be opened.
    public static let accessAdvice = "add the user to the group 'input' (sudo usermod -aG input $USER) and log in again"

    static func openError(path: String, id: String, errno code: Int32) -> SensorError {
        let advice = code == EACCES ? "; \(accessAdvice)" : ""
        return SensorError(device: id, reason: "cannot open \(path): \(String(cString: strerror(code)))\(advice)")
    }
}
