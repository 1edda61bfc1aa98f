import CLibEvdev
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The input devices under /dev/input that have accelerometer and gyroscope axes.
enum EvdevDiscovery {
    static let prefix = "evdev:"

    struct Found {
        var id: String
        var name: String
        var path: String
    }

    /// Devices in event-number order; the ID is the device's name, so it survives a replug.
    static func motionDevices(in folder: String = "/dev/input") -> (found: [Found], unreadable: [String]) {
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("event") }
            .sorted { Int($0.dropFirst(5)) ?? 0 < Int($1.dropFirst(5)) ?? 0 }
        var found: [Found] = []
        var unreadable: [String] = []
        for node in nodes {
            let path = "\(folder)/\(node)"
            switch name(ofMotionDevice: path) {
            case .some(.some(let name)):
                var id = prefix + name.map { $0.isLetter || $0.isNumber ? $0 : "_" }
                if found.contains(where: { $0.id == id }) { id += "#\(found.count + 1)" }
                found.append(Found(id: id, name: name, path: path))
            case .some(.none): continue
            case .none: unreadable.append(path)
            }
        }
        return (found, unreadable)
    }

    /// nil when the node cannot be opened; .some(nil) when it is no motion device.
    private static func name(ofMotionDevice path: String) -> String?? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var device: OpaquePointer?
        guard libevdev_new_from_fd(descriptor, &device) == 0, let device else { return .some(nil) }
        defer { libevdev_free(device) }
        return EvdevSensor.isMotionDevice(device) ? .some(String(cString: libevdev_get_name(device))) : .some(nil)
    }
}
