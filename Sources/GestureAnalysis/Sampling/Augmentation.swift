import Foundation
import GestureCore
import GestureMotion

/// Extra training sessions made from the recorded ones, so the model learns what should not matter.
public enum Augmentation: String, Sendable, CaseIterable {
    /// A mirrored copy of every session: the same movements with the watch on the other wrist.
    case mirror
    /// A copy of every session with the watch turned on the wrist by a small random rotation.
    case rotate
    /// A copy of every session performed faster or slower, by a random factor up to `maximumWarp`.
    case warp
    /// A copy of every session performed with more or less vigour: its rotation rate and user
    /// acceleration scaled by a random factor up to `maximumScale`.
    case scale
}

/// Which copies to add to every training session, and how they are made. Each augmentation listed
/// adds one copy, so `[.rotate, .rotate]` adds two differently rotated ones.
public struct AugmentationPlan: Sendable {
    public var augmentations: [Augmentation]
    public var mirroring: Mirroring
    /// The largest angle a rotated copy turns the watch by, in degrees.
    public var maximumRotation: Double
    /// The largest factor a warped copy is faster or slower by: 1.25 ranges from 0.8 to 1.25 times the speed.
    public var maximumWarp: Double
    /// The largest factor a scaled copy's motion is stronger or weaker by.
    public var maximumScale: Double
    public var seed: UInt64

    public init(
        _ augmentations: [Augmentation], mirroring: Mirroring = Mirroring(across: .x),
        maximumRotation: Double = 15, maximumWarp: Double = 1.25, maximumScale: Double = 1.25, seed: UInt64 = 1
    ) {
        precondition(maximumWarp >= 1 && maximumScale >= 1)
        self.augmentations = augmentations
        self.mirroring = mirroring
        self.maximumRotation = maximumRotation
        self.maximumWarp = maximumWarp
        self.maximumScale = maximumScale
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

    /// The session performed `speed` times as fast: sampled at the same rate, it has 1 / `speed`
    /// as many rows, each interpolated between the two recorded rows it falls between.
    public func warped(speed: Double, name: String) -> RecordedSession {
        guard rows.count > 1 else { return copy(named: name) { $0 } }
        let interval = (rows.last!.timestamp - rows.first!.timestamp) / Double(rows.count - 1)
        let count = max(2, Int((Double(rows.count - 1) / speed).rounded()) + 1)
        var session = copy(named: name) { $0 }
        session.rows = (0..<count).map { index in
            let position = min(Double(index) * speed, Double(rows.count - 1))
            let before = Int(position), fraction = position - Double(before)
            let after = min(before + 1, rows.count - 1)
            var row = rows[before].interpolated(toward: rows[after], by: fraction)
            row.session = session.id
            row.timestamp = rows[0].timestamp + Double(index) * interval
            return row
        }
        return session
    }

    /// The session with its rotation rates and accelerations (gravity aside) `factor` times as large.
    public func scaled(by factor: Double, name: String) -> RecordedSession {
        copy(named: name) { row in
            var scaled = row
            scaled.motion.rotationRate *= factor
            scaled.motion.userAcceleration *= factor
            scaled.rawRotationRate *= factor
            scaled.rawAcceleration = row.motion.gravity + factor * (row.rawAcceleration - row.motion.gravity)
            return scaled
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

/// Makes the copies a plan adds to each session, a session at a time: the random turns and factors
/// are drawn from the plan's seed in the order the sessions are given, so the same sessions in the
/// same order get the same copies.
public struct SessionCopier: Sendable {
    public let plan: AugmentationPlan
    private var random: SeededRandom

    public init(_ plan: AugmentationPlan) {
        self.plan = plan
        random = SeededRandom(seed: plan.seed, "augmentation")
    }

    /// `session`, followed by its copies.
    public mutating func withCopies(of session: RecordedSession) -> [RecordedSession] {
        [session]
            + plan.augmentations.enumerated().map { copy, augmentation in
                switch augmentation {
                case .mirror: session.mirrored(by: plan.mirroring)
                case .rotate:
                    session.rotated(by: random.turn(upTo: plan.maximumRotation), name: "rotated \(copy + 1)")
                case .warp:
                    session.warped(speed: random.factor(upTo: plan.maximumWarp), name: "warped \(copy + 1)")
                case .scale:
                    session.scaled(by: random.factor(upTo: plan.maximumScale), name: "scaled \(copy + 1)")
                }
            }
    }
}

extension RecordingRow {
    /// Part way from this row to `next`: vectors interpolated, the attitude and label of the nearer row.
    fileprivate func interpolated(toward next: RecordingRow, by fraction: Double) -> RecordingRow {
        guard fraction > 0 else { return self }
        var row = fraction < 0.5 ? self : next
        func mix(_ a: Vector3, _ b: Vector3) -> Vector3 { a + fraction * (b - a) }
        row.motion.rotationRate = mix(motion.rotationRate, next.motion.rotationRate)
        row.motion.gravity = mix(motion.gravity, next.motion.gravity)
        row.motion.userAcceleration = mix(motion.userAcceleration, next.motion.userAcceleration)
        row.rawAcceleration = mix(rawAcceleration, next.rawAcceleration)
        row.rawRotationRate = mix(rawRotationRate, next.rawRotationRate)
        return row
    }
}

extension SeededRandom {
    /// A factor from 1 / `largest` to `largest`, its logarithm uniform: as likely to shrink as to grow.
    fileprivate mutating func factor(upTo largest: Double) -> Double {
        exp(uniform(-log(largest)...log(largest)))
    }

    /// A rotation about an axis uniform on the sphere, by an angle uniform up to `degrees`.
    fileprivate mutating func turn(upTo degrees: Double) -> Quaternion {
        let z = uniform(-1...1), azimuth = uniform(0...(2 * .pi))
        let radius = (1 - z * z).squareRoot()
        let axis = Vector3(radius * cos(azimuth), radius * sin(azimuth), z)
        return Quaternion(axis: axis, angle: uniform(0...degrees) * .pi / 180)
    }
}
