import Foundation
import GestureCore
import GestureMotion
import GestureTestSupport
import Testing

@Suite struct QuaternionTests {
    static let attitudes: [Attitude] = [
        Attitude(roll: 0, pitch: 0, yaw: 0),
        Attitude(roll: 0.3, pitch: -0.2, yaw: 1.0),
        Attitude(roll: -2.5, pitch: 1.2, yaw: -3.0),
        Attitude(roll: 3.0, pitch: -1.4, yaw: 2.9),
        Attitude(roll: 1.0, pitch: 0.5, yaw: -0.5),
        Attitude(roll: -0.01, pitch: 0.01, yaw: 3.14),
    ]

    static let vectors: [Vector3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, -1.7, 2.2], [-5, 0.01, 4]]

    @Test(arguments: attitudes)
    func attitudeSurvivesAQuaternion(_ attitude: Attitude) {
        let back = Quaternion(attitude).attitude
        #expect(angleDifference(back.roll, attitude.roll) < 1e-12)
        #expect(abs(back.pitch - attitude.pitch) < 1e-12)
        #expect(angleDifference(back.yaw, attitude.yaw) < 1e-12)
    }

    @Test(arguments: attitudes)
    func attitudeQuaternionIsYawThenPitchThenRollAsMatrices(_ attitude: Attitude) {
        let q = Quaternion(attitude)
        #expect(abs(q.w * q.w + (q.v * q.v).sum() - 1) < 1e-12)
        for u in Self.vectors {
            let expected = rotationZ(attitude.yaw, rotationY(attitude.pitch, rotationX(attitude.roll, u)))
            #expect(distance(q.rotate(u), expected) < 1e-12)
        }
    }

    @Test func quarterTurnAboutZTakesXToY() {
        let q = Quaternion(axis: [0, 0, 1], angle: .pi / 2)
        #expect(distance(q.rotate([1, 0, 0]), [0, 1, 0]) < 1e-15)
        #expect(distance(q.rotate([0, 1, 0]), [-1, 0, 0]) < 1e-15)
        #expect(distance(q.unrotate([0, 1, 0]), [1, 0, 0]) < 1e-15)
    }

    @Test(arguments: attitudes)
    func unrotateUndoesRotateAndLengthIsKept(_ attitude: Attitude) {
        let q = Quaternion(attitude)
        for u in Self.vectors {
            #expect(distance(q.unrotate(q.rotate(u)), u) < 1e-12)
            #expect(distance(q.rotate(q.unrotate(u)), u) < 1e-12)
            #expect(abs(magnitude(q.rotate(u)) - magnitude(u)) < 1e-12)
        }
    }

    @Test func productRotatesByTheRightFactorFirst() {
        for (a, b) in zip(Self.attitudes, Self.attitudes.reversed()) {
            let p = Quaternion(a), q = Quaternion(b)
            for u in Self.vectors {
                #expect(distance((p * q).rotate(u), p.rotate(q.rotate(u))) < 1e-12)
            }
        }
    }

    @Test func conjugateIsTheInverse() {
        for attitude in Self.attitudes {
            let q = Quaternion(attitude)
            let product = q * q.conjugate
            #expect(abs(product.w - 1) < 1e-12)
            #expect(magnitude(product.v) < 1e-12)
        }
    }

    @Test func normalizedHasUnitLengthAndTheSameRotation() {
        let q = Quaternion(w: 2, v: [0, 0, 2])
        let n = q.normalized
        #expect(abs(n.w * n.w + (n.v * n.v).sum() - 1) < 1e-15)
        #expect(distance(n.rotate([1, 0, 0]), [0, 1, 0]) < 1e-15)
    }

    @Test func rotationRateTurnsByRateTimesSecondsAboutTheRateAxis() {
        let q = Quaternion(rotationRate: [0, 0, 2], seconds: 0.25)
        #expect(distance(q.rotate([1, 0, 0]), [cos(0.5), sin(0.5), 0]) < 1e-15)
        let tilted = Quaternion(rotationRate: [0.3, 0, 0], seconds: 2)
        #expect(distance(tilted.rotate([0, 1, 0]), rotationX(0.6, [0, 1, 0])) < 1e-15)
        #expect(Quaternion(rotationRate: .zero, seconds: 1) == .identity)
    }

    @Test func crossAndLengthAreTheTextbookOnes() {
        #expect(cross([1, 0, 0], [0, 1, 0]) == [0, 0, 1])
        #expect(cross([0, 1, 0], [1, 0, 0]) == [0, 0, -1])
        let (a, b): (Vector3, Vector3) = ([1, 2, 3], [4, 5, 6])
        let expected = Vector3(-3, 6, -3) // by hand: (2·6 − 3·5, 3·4 − 1·6, 1·5 − 2·4)
        #expect(cross(a, b) == expected)
        #expect((cross(a, b) * a).sum() == 0)
        #expect(length([3, 4, 12]) == 13)
    }
}
