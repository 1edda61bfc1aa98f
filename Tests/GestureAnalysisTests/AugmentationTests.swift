import Foundation
import GestureAnalysis
import GestureCore
import GestureMotion
import GestureTestSupport
import Testing

@Suite struct AugmentationTests {
    /// A session as the attitude filter fuses it, so that attitude, gravity and readings agree.
    private func fusedSession() throws -> RecordedSession {
        var filter = AttitudeFilter()
        let id = SessionID(rawValue: "ann-wave-1")
        let label = try ActivityLabel("wave")
        let rows = (0..<200).map { k -> RecordingRow in
            let t = Double(k) / 50
            let sample = RawSample(
                time: t, acceleration: [0.3 * sin(3 * t), 0.6 + 0.2 * cos(2 * t), 0.8],
                rotationRate: [1.5 * sin(4 * t), 0.7 * cos(3 * t), 0.9 * sin(2 * t)])
            return RecordingRow(
                session: id, activity: label, timestamp: t, motion: filter.update(sample),
                rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate)
        }
        return RecordedSession(id: id, user: try UserID("ann"), gesture: label, file: "ann-x.csv", rows: rows)
    }

    @Test func mirrorAddsTheMirrorImageOfEverySessionAfterIt() throws {
        let session = try fusedSession()
        let mirroring = Mirroring(across: .y)
        var copier = SessionCopier(AugmentationPlan([.mirror], mirroring: mirroring))
        let augmented = [session, session].flatMap { copier.withCopies(of: $0) }

        #expect(
            augmented.map(\.id.rawValue) == [
                "ann-wave-1", "ann-wave-1 mirrored", "ann-wave-1", "ann-wave-1 mirrored",
            ])
        let mirrored = augmented[1]
        #expect(mirrored.user == session.user && mirrored.gesture == session.gesture)
        #expect(mirrored.rows.map(\.activity) == session.rows.map(\.activity))
        #expect(mirrored.rows.allSatisfy { $0.session == mirrored.id })
        let row = session.rows[10], image = mirrored.rows[10]
        #expect(image.rawAcceleration == Vector3(row.rawAcceleration.x, -row.rawAcceleration.y, row.rawAcceleration.z))
        #expect(
            image.motion.rotationRate
                == Vector3(-row.motion.rotationRate.x, row.motion.rotationRate.y, -row.motion.rotationRate.z))
        #expect(
            image.motion.attitude
                == Attitude(
                    roll: -row.motion.attitude.roll, pitch: row.motion.attitude.pitch,
                    yaw: -row.motion.attitude.yaw))
    }

    @Test func aWarpedCopyIsTheSameMovementFasterAtTheSameRate() throws {
        let session = try fusedSession()
        let fast = session.warped(speed: 2, name: "warped 1")
        #expect(fast.id.rawValue == "ann-wave-1 warped 1" && fast.copyOf == session.id)
        #expect(fast.rows.count == 101)
        #expect(fast.rows[1].timestamp == session.rows[1].timestamp, "the same rate")
        #expect(fast.rows[7].motion.rotationRate == session.rows[14].motion.rotationRate)
        let slow = session.warped(speed: 0.5, name: "warped 2")
        #expect(slow.rows.count == 399)
        let between = slow.rows[7].motion.userAcceleration
        #expect(between == (session.rows[3].motion.userAcceleration + session.rows[4].motion.userAcceleration) / 2)
        #expect(slow.rows.allSatisfy { $0.session == slow.id })
    }

    @Test func aScaledCopyMovesMoreStronglyUnderTheSameGravity() throws {
        let session = try fusedSession()
        let strong = session.scaled(by: 1.2, name: "scaled 1")
        let row = session.rows[20], scaled = strong.rows[20]
        #expect(scaled.motion.rotationRate == row.motion.rotationRate * 1.2)
        #expect(scaled.motion.userAcceleration == row.motion.userAcceleration * 1.2)
        #expect(scaled.motion.gravity == row.motion.gravity)
        let plan = AugmentationPlan([.warp, .scale], maximumWarp: 1.5, maximumScale: 1.5, seed: 3)
        var copier = SessionCopier(plan)
        let augmented = copier.withCopies(of: session)
        #expect(augmented.map(\.id.rawValue) == ["ann-wave-1", "ann-wave-1 warped 1", "ann-wave-1 scaled 2"])
        #expect((134...300).contains(augmented[1].rows.count))
    }

    @Test func aRotatedCopyIsTheSameMovementSeenFromATurnedWatch() throws {
        let session = try fusedSession()
        let plan = AugmentationPlan([.rotate, .rotate], maximumRotation: 20, seed: 7)
        var copier = SessionCopier(plan)
        let augmented = copier.withCopies(of: session)

        #expect(augmented.map(\.id.rawValue) == ["ann-wave-1", "ann-wave-1 rotated 1", "ann-wave-1 rotated 2"])
        #expect(augmented.map(\.copyOf) == [nil, session.id, session.id], "copies name their recording")
        #expect(augmented[1].rows[0].rawAcceleration != augmented[2].rows[0].rawAcceleration)
        #expect(copier.withCopies(of: session)[1].rows != augmented[1].rows, "the next session's copies turn anew")
        for copy in augmented.dropFirst() {
            for (turned, row) in zip(copy.rows, session.rows) {
                // Lengths are kept, the turn is at most 20°, and gravity stays the attitude's gravity.
                #expect(abs(length(turned.rawAcceleration) - length(row.rawAcceleration)) < 1e-12)
                #expect(abs(length(turned.motion.rotationRate) - length(row.motion.rotationRate)) < 1e-12)
                let cosine =
                    (turned.rawAcceleration * row.rawAcceleration).sum()
                    / (length(row.rawAcceleration) * length(row.rawAcceleration))
                #expect(cosine >= cos(20 * Double.pi / 180) - 1e-12)
                #expect(length(Quaternion(turned.motion.attitude).unrotate([0, 0, 1]) - turned.motion.gravity) < 1e-9)
                #expect(length(turned.motion.gravity + turned.motion.userAcceleration - turned.rawAcceleration) < 1e-12)
            }
        }
        // The same seed gives the same copies.
        var again = SessionCopier(plan)
        #expect(again.withCopies(of: session)[1].rows == augmented[1].rows)
    }
}
