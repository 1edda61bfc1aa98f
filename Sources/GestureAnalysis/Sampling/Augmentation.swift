import Foundation
import GestureCore
import GestureMotion

/// Extra training sessions made from the recorded ones, so the model learns what should not matter.
public enum Augmentation: String, Sendable, CaseIterable {
    /// A mirrored copy of every session: the same movements with the watch on the other wrist.
    case mirror
    /// A copy of every session with the watch turned on the wrist by a small random rotation.
    case rotate
}

/// Which copies to add to every training session, and how they are made. Each augmentation listed
/// adds one copy, so `[.rotate, .rotate]` adds two differently rotated ones.
public struct AugmentationPlan: Sendable {
    public var augmentations: [Augmentation]
    public var mirroring: Mirroring
    /// The largest angle a rotated copy turns the watch by, in degrees.
    public var maximumRotation: Double
    public var seed: UInt64

    public init(
        _ augmentations: [Augmentation], mirroring: Mirroring = Mirroring(across: .x),
        maximumRotation: Double = 15, seed: UInt64 = 1
    ) {
        self.augmentations = augmentations
        self.mirroring = mirroring
        self.maximumRotation = maximumRotation
        self.seed = seed
    }
}

extension RecordedSession {
    /// The session as a watch on the other wrist would have recorded its mirror image.
    public func mirrored(by mirroring: Mirroring) -> RecordedSession {
        copy(named: "mirrored") { mirroring.row($0) }
    }

    /// The session as a watch turned by `turn` (body to body: a vector in the turned watch's axes
    /// is `turn.unrotate` of the original's) would have recorded it.
    public func rotated(by turn: Quaternion, name: String) -> RecordedSession {
        copy(named: name) { row in
            var turned = row
            turned.motion = DeviceMotion(
                attitude: (Quaternion(row.motion.attitude) * turn).attitude,
                rotationRate: turn.unrotate(row.motion.rotationRate),
                gravity: turn.unrotate(row.motion.gravity),
                userAcceleration: turn.unrotate(row.motion.userAcceleration))
            turned.rawAcceleration = turn.unrotate(row.rawAcceleration)
            turned.rawRotationRate = turn.unrotate(row.rawRotationRate)
            return turned
        }
    }

    /// The session with every row changed, under the ID `<id> <name>`, a copy of this one.
    private func copy(named name: String, _ change: (RecordingRow) -> RecordingRow) -> RecordedSession {
        var session = self
        session.id = SessionID(rawValue: "\(id.rawValue) \(name)")
        session.copyOf = copyOf ?? id
        session.rows = rows.map { row in
            var changed = change(row)
            changed.session = session.id
            return changed
        }
        return session
    }
}

extension Dataset {
    /// The sessions, each followed by its augmented copies.
    public func augmented(by plan: AugmentationPlan) -> Dataset {
        guard !plan.augmentations.isEmpty else { return self }
        var random = SeededRandom(seed: plan.seed, "augmentation")
        return Dataset(
            sessions: sessions.flatMap { session in
                [session]
                    + plan.augmentations.enumerated().map { copy, augmentation in
                        switch augmentation {
                        case .mirror: session.mirrored(by: plan.mirroring)
                        case .rotate:
                            session.rotated(by: random.turn(upTo: plan.maximumRotation), name: "rotated \(copy + 1)")
                        }
                    }
            })
    }
}

extension SeededRandom {
    /// A rotation about an axis uniform on the sphere, by an angle uniform up to `degrees`.
    fileprivate mutating func turn(upTo degrees: Double) -> Quaternion {
        let z = uniform(-1...1), azimuth = uniform(0...(2 * .pi))
        let radius = (1 - z * z).squareRoot()
        let axis = Vector3(radius * cos(azimuth), radius * sin(azimuth), z)
        return Quaternion(axis: axis, angle: uniform(0...degrees) * .pi / 180)
    }
}
