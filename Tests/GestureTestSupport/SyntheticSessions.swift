import Foundation
import GestureAnalysis
import GestureCore

import struct SystemPackage.FilePath

/// A motion to synthesize: a rotation about one device axis, oscillating, with the user
/// acceleration following it on the same axis.
public struct Oscillation: Sendable {
    public var axis: Int
    public var frequency: Double
    public var amplitude: Double

    public init(axis: Int, frequency: Double, amplitude: Double) {
        self.axis = axis
        self.frequency = frequency
        self.amplitude = amplitude
    }
}

/// A session of synthetic rows: `rest` for a second, the gesture, `rest` for a second, at `rate`,
/// the device held so that gravity reads `gravity`.
public func syntheticSession(
    _ id: String, user: String, gesture: String, motion: Oscillation, gravity: Vector3 = [0, 0.6, 0.8],
    rate: Double = 50, seconds: Double = 4, device: String? = nil
) throws -> RecordedSession {
    let label = try ActivityLabel(gesture)
    let count = Int((seconds + 2) * rate)
    let rows = (0..<count).map { k -> RecordingRow in
        let t = Double(k) / rate
        let active = t >= 1 && t < 1 + seconds
        var rotation = Vector3.zero, acceleration = Vector3.zero
        if active {
            rotation[motion.axis] = motion.amplitude * sin(2 * .pi * motion.frequency * t)
            acceleration[motion.axis] = 0.5 * motion.amplitude * cos(2 * .pi * motion.frequency * t)
        }
        // A little deterministic tremor, so no axis is exactly constant.
        let tremor = 0.002 * sin(Double(k) * 1.7)
        rotation += Vector3(repeating: tremor)
        acceleration += Vector3(repeating: tremor)
        let motionValue = DeviceMotion(
            attitude: Attitude(roll: 0.6, pitch: 0, yaw: 0), rotationRate: rotation,
            gravity: gravity, userAcceleration: acceleration)
        return RecordingRow(
            session: SessionID(rawValue: id), activity: active ? label : .rest, timestamp: t, motion: motionValue,
            rawAcceleration: gravity + acceleration, rawRotationRate: rotation)
    }
    return RecordedSession(
        id: SessionID(rawValue: id), user: try UserID(user), gesture: label, file: "\(user)-x.csv",
        device: device, rows: rows)
}

public let twist = Oscillation(axis: 2, frequency: 0.5, amplitude: 2)
public let wave = Oscillation(axis: 0, frequency: 4, amplitude: 6)

/// Three users with four sessions each of two gestures: twist and wave.
public func syntheticDataset() throws -> [RecordedSession] {
    var sessions: [RecordedSession] = []
    for user in ["ann", "bob", "cy"] {
        for take in 1...4 {
            let scale = 1 + 0.05 * Double(take)
            sessions.append(
                try syntheticSession(
                    "\(user)-twist-\(take)", user: user, gesture: "twist",
                    motion: Oscillation(axis: 2, frequency: 0.5 * scale, amplitude: 2 * scale)))
            sessions.append(
                try syntheticSession(
                    "\(user)-wave-\(take)", user: user, gesture: "wave",
                    motion: Oscillation(axis: 0, frequency: 4 * scale, amplitude: 6 / scale)))
        }
    }
    return sessions
}

/// Writes rows as a GestureLab recording file.
public func writeRecording(_ rows: [RecordingRow], to path: FilePath) throws {
    try FileManager.default.createDirectory(
        atPath: path.removingLastComponent().string, withIntermediateDirectories: true)
    let text = ([RecordingCSV.header] + rows.map(RecordingCSV.line(for:))).joined(separator: "\n") + "\n"
    try text.write(toFile: path.string, atomically: true, encoding: .utf8)
}
