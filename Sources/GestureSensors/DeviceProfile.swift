import FoundationEssentials
import GestureCore
import Glibc

/// How to read one kind of sensor: which devices it is for, how its axes map to the recorder's,
/// its mounting, unit corrections and preferred rate. Profiles live in devices/ as text files
/// that users edit; no rebuild needed:
///
///     # An MPU-6050 on a Raspberry Pi, mounted upside down
///     name = MPU-6050 through IIO (inv_mpu6050)
///     match = iio:mpu6050*
///     axes = x -y -z
///     mount-matrix = 1 0 0; 0 1 0; 0 0 1
///     acceleration-scale = 1
///     rotation-scale = 1
///     rate = 100
public struct DeviceProfile: Sendable, Equatable {
    public var file: String
    public var name: String
    /// Shell patterns matched against a device's ID and its name.
    public var patterns: [String]
    /// For each recorder axis, the device axis it takes (0, 1, 2) and the sign.
    public var axes: [(axis: Int, sign: Double)] = [(0, 1), (1, 1), (2, 1)]
    /// Replaces the mounting the kernel reports, rows first.
    public var mountMatrix: [[Double]]?
    public var accelerationScale = 1.0
    public var rotationScale = 1.0
    /// The rate to record at when none is asked for.
    public var rate: Double?

    public static func == (a: DeviceProfile, b: DeviceProfile) -> Bool {
        a.file == b.file && a.name == b.name && a.patterns == b.patterns
            && a.axes.map(\.axis) == b.axes.map(\.axis) && a.axes.map(\.sign) == b.axes.map(\.sign)
            && a.mountMatrix == b.mountMatrix && a.accelerationScale == b.accelerationScale
            && a.rotationScale == b.rotationScale && a.rate == b.rate
    }

    public func matches(_ sensor: SensorInfo) -> Bool {
        patterns.contains { fnmatch($0, sensor.id, 0) == 0 || fnmatch($0, sensor.name, 0) == 0 }
    }

    /// A reading in the device's frame, in the recorder's: mounting, then axes, then scale.
    public func apply(_ sample: RawSample, mounting: Bool) -> RawSample {
        func transform(_ v: Vector3, scale: Double) -> Vector3 {
            let mounted =
                mounting
                ? mountMatrix.map { m in Vector3((0..<3).map { (Vector3(m[$0][0], m[$0][1], m[$0][2]) * v).sum() }) }
                    ?? v : v
            return Vector3(axes.map { mounted[$0.axis] * $0.sign * scale })
        }
        return RawSample(
            time: sample.time, acceleration: transform(sample.acceleration, scale: accelerationScale),
            rotationRate: transform(sample.rotationRate, scale: rotationScale))
    }
}

/// A profile line that cannot be used, with its file, line and field.
public struct ProfileError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var field: String
    public var reason: String

    public var description: String { "\(file):\(line): \(field.isEmpty ? "" : "\(field): ")\(reason)" }
}

extension DeviceProfile {
    public init(text: String, file: String) throws(ProfileError) {
        self.file = file
        name = String(file.split(separator: "/").last ?? Substring(file))
        patterns = []
        var sawMatch = false
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.prefix { $0 != "#" }.trimmed
            guard !line.isEmpty else { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0.trimmed)
            }
            func fail(_ reason: String) -> ProfileError {
                ProfileError(file: file, line: index + 1, field: parts[0], reason: reason)
            }
            func require<T>(_ value: T?, _ reason: String) throws(ProfileError) -> T {
                guard let value else { throw fail(reason) }
                return value
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw fail("expected 'field = value'") }
            let value = parts[1]
            switch parts[0] {
            case "name": name = value
            case "match":
                patterns = value.split(separator: " ").map(String.init)
                sawMatch = true
            case "axes":
                axes = try require(Self.axes(value), "expected x, y and z, each once, optionally signed, like 'y -x z'")
            case "mount-matrix":
                mountMatrix = try require(
                    Self.matrix(value), "expected three rows of three numbers, like '1 0 0; 0 1 0; 0 0 1'")
            case "acceleration-scale":
                accelerationScale = try require(Self.positive(value), "expected a positive number")
            case "rotation-scale": rotationScale = try require(Self.positive(value), "expected a positive number")
            case "rate": rate = try require(Self.positive(value), "expected a positive number of Hz")
            default:
                throw fail(
                    "unknown field; known: name, match, axes, mount-matrix, acceleration-scale, rotation-scale, rate")
            }
        }
        guard sawMatch else {
            throw ProfileError(
                file: file, line: 1, field: "match", reason: "missing: a profile must say which devices it is for")
        }
    }

    private static func axes(_ text: String) -> [(axis: Int, sign: Double)]? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," })
        let axes = tokens.compactMap { token -> (axis: Int, sign: Double)? in
            guard let axis = ["x", "y", "z"].firstIndex(of: String(token.drop { $0 == "-" || $0 == "+" })) else {
                return nil
            }
            return (axis, token.hasPrefix("-") ? -1 : 1)
        }
        guard tokens.count == 3, axes.count == 3, Set(axes.map(\.axis)).count == 3 else { return nil }
        return axes
    }

    private static func matrix(_ text: String) -> [[Double]]? {
        let rows = text.split(separator: ";").map {
            $0.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
        }
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == ";" }).count
        guard rows.count == 3, fields == 9, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        return rows
    }

    private static func positive(_ text: String) -> Double? {
        Double(text).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// Every *.profile in a folder, sorted by file name; the first that matches a device wins.
    /// Where profiles are looked for when no folder is given, in order, the first match winning:
    /// the user's (`$XDG_CONFIG_HOME/gesturelab/devices`, by default under `~/.config`), those
    /// installed beside the executable (`<prefix>/share/gesturelab/devices` for `<prefix>/bin/gesture`),
    /// and `devices` in the current folder (a checkout of GestureLab).
    public static func searchPath(
        environment: [String: String] = ["XDG_CONFIG_HOME", "HOME"].reduce(into: [:]) {
            $0[$1] = getenv($1).map { String(cString: $0) }
        },
        executable: String = CommandLine.arguments[0]
    ) -> [String] {
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let config = xdg ?? environment["HOME"].map { $0 + "/.config" }
        let prefix = realFolders(of: executable).dropLast(2).joined(separator: "/")
        return (config.map { [$0 + "/gesturelab/devices"] } ?? []) + ["/\(prefix)/share/gesturelab/devices", "devices"]
    }

    /// The folders of `path`'s absolute path, symlinks resolved where it exists, and its file name
    /// last (what Foundation's URL would give, without loading it at every start of a detector).
    private static func realFolders(of path: String) -> [Substring] {
        func taking(_ text: UnsafeMutablePointer<CChar>?) -> String? {
            defer { free(text) }
            return text.map { String(cString: $0) }
        }
        let absolute = path.hasPrefix("/") ? path : (taking(getcwd(nil, 0)) ?? "") + "/" + path
        return (taking(realpath(absolute, nil)) ?? absolute).split(separator: "/")
    }

    public static func load(from folder: String) throws(ProfileError) -> [DeviceProfile] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".profile")
        }.sorted()
        var profiles: [DeviceProfile] = []
        for name in names {
            let path = "\(folder)/\(name)"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ProfileError(file: path, line: 0, field: "file", reason: "cannot be read as UTF-8 text")
            }
            profiles.append(try DeviceProfile(text: text, file: path))
        }
        return profiles
    }
}

/// A sensor read through a profile.
public final class ProfiledSensor: MotionSensor {
    public let base: any MotionSensor
    public let profile: DeviceProfile
    private let mounting: Bool

    /// `mounting`: whether the profile's mount matrix is applied here, or the base applied it.
    public init(_ base: any MotionSensor, profile: DeviceProfile, mounting: Bool) {
        self.base = base
        self.profile = profile
        self.mounting = mounting
    }

    public var info: SensorInfo { base.info }
    public var pacing: SensorPacing { base.pacing }
    public var warnings: [String] { base.warnings }
    public var lostReadings: Int { base.lostReadings }
    public func start(rate: Double) throws(SensorError) -> Double { try base.start(rate: rate) }
    public func stop() { base.stop() }

    public func read(now: Double) throws(SensorError) -> RawSample? {
        try base.read(now: now).map { profile.apply($0, mounting: mounting) }
    }
}
