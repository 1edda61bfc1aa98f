import CLibIIO
import FoundationEssentials
import GestureCore

/// One IIO device's accelerometer or gyroscope channels (accel_x/y/z or anglvel_x/y/z), with
/// the conversion the kernel's ABI defines: (raw + offset) × scale, in m/s² or rad/s, then the
/// device's mount matrix.
struct IIOTriple {
    enum Kind: String {
        case acceleration = "accel"
        case rotationRate = "anglvel"
    }

    let kind: Kind
    let device: OpaquePointer
    let channels: [OpaquePointer]
    let scale: [Double]
    let offset: [Double]
    var mount: [[Double]]?

    /// The triple of `kind` in `device`, if it has all three axes.
    init?(_ kind: Kind, in device: OpaquePointer) {
        let channels = ["x", "y", "z"].compactMap { iio_device_find_channel(device, "\(kind.rawValue)_\($0)", false) }
        guard channels.count == 3 else { return nil }
        self.kind = kind
        self.device = device
        self.channels = channels
        scale = channels.map { Self.attribute($0, "scale") ?? 1 }
        offset = channels.map { Self.attribute($0, "offset") ?? 0 }
        mount = Self.text(channels[0], "mount_matrix").flatMap(Self.parseMountMatrix)
    }

    var deviceName: String {
        iio_device_get_name(device).map { String(cString: $0) } ?? String(cString: iio_device_get_id(device))
    }

    /// Raw counts in g (acceleration) or rad/s (rotation rate), in the device's mounting.
    func convert(_ raw: [Double]) -> Vector3 {
        var value = (0..<3).map { (raw[$0] + offset[$0]) * scale[$0] }
        if kind == .acceleration { value = value.map { $0 / 9.806_65 } }
        if let mount {
            value = mount.map { row in zip(row, value).map(*).reduce(0, +) }
        }
        return Vector3(value[0], value[1], value[2])
    }

    static func attribute(_ channel: OpaquePointer, _ name: String) -> Double? {
        var value = 0.0
        return iio_channel_attr_read_double(channel, name, &value) == 0 ? value : nil
    }

    /// A channel attribute's text.
    static func text(_ channel: OpaquePointer, _ name: String) -> String? {
        read { iio_channel_attr_read(channel, name, $0, $1) }
    }

    /// A device attribute's text.
    static func text(device: OpaquePointer, _ name: String) -> String? {
        read { iio_device_attr_read(device, name, $0, $1) }
    }

    private static func read(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard buffer.withUnsafeMutableBufferPointer({ body($0.baseAddress!, $0.count) }) > 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// "x1, y1, z1; x2, y2, z2; x3, y3, z3", the kernel's mount matrix, rows first.
    static func parseMountMatrix(_ text: String) -> [[Double]]? {
        let rows = text.split(separator: ";").map { $0.split(separator: ",").compactMap { Double($0.trimmed) } }
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        return rows == [[1, 0, 0], [0, 1, 0], [0, 0, 1]] ? nil : rows
    }
}

/// The accelerometers and gyroscopes of an IIO context: one device with both (an MPU-6050, a
/// BMI160), or an accelerometer device and a gyroscope device taken together (HID sensors).
struct IIOMotionDevices {
    struct Pair {
        var acceleration: IIOTriple
        var rotationRate: IIOTriple?

        var id: String {
            let gyro = rotationRate.map { $0.device == acceleration.device ? "" : "+\($0.deviceName)" } ?? ""
            return IIOMotionDevices.prefix + acceleration.deviceName + gyro
        }
    }

    static let prefix = "iio:"

    let pairs: [Pair]

    init(context: OpaquePointer) {
        let devices = (0..<iio_context_get_devices_count(context)).compactMap { iio_context_get_device(context, $0) }
            .filter { !iio_device_is_trigger($0) }
        let accelerometers = devices.compactMap { IIOTriple(.acceleration, in: $0) }
        let gyroscopes = devices.compactMap { IIOTriple(.rotationRate, in: $0) }
        var spare = gyroscopes.filter { gyro in !accelerometers.contains { $0.device == gyro.device } }
        pairs = accelerometers.map { accelerometer in
            if let own = gyroscopes.first(where: { $0.device == accelerometer.device }) {
                return Pair(acceleration: accelerometer, rotationRate: own)
            }
            return Pair(acceleration: accelerometer, rotationRate: spare.isEmpty ? nil : spare.removeFirst())
        }
    }
}
