import Foundation
import GestureCore

/// The checks that compare a session with the others: how it was held, and what it looks like.
struct GroupChecks {
    let rules: CleaningRules
    let dataset: Dataset

    /// Compared with the same user's other sessions of the gesture when there are two or more
    /// (people hold a device their own way), else with all other sessions of the gesture.
    func orientation(_ session: RecordedSession, gravity: [SessionID: Vector3]) -> Finding? {
        guard let own = gravity[session.id] else { return nil }
        let others = dataset.sessions.filter {
            $0.gesture == session.gesture && $0.id != session.id && gravity[$0.id] != nil
        }
        let sameUser = others.filter { $0.user == session.user }
        let reference = sameUser.count >= 2 ? sameUser : others
        guard reference.count >= 2 else { return nil }
        let usual = Self.normalized(
            Vector3(
                Statistics.median(reference.map { gravity[$0.id]!.x }),
                Statistics.median(reference.map { gravity[$0.id]!.y }),
                Statistics.median(reference.map { gravity[$0.id]!.z })))
        let angle = Self.degrees(own, usual)
        guard angle > rules.orientationDegrees else { return nil }
        // Without a usual way of holding it (say half the sessions on the left wrist, half on the
        // right) there is nothing to disagree with.
        let agreeing = reference.filter { Self.degrees(gravity[$0.id]!, usual) <= rules.orientationDegrees }.count
        guard Double(agreeing) >= 0.7 * Double(reference.count) else { return nil }
        let whose = reference.count == sameUser.count ? "\(session.user)'s" : "the"
        return Finding(
            .orientation,
            String(
                format: "gravity (%.2f, %.2f, %.2f) g is %.0f° from %@ other %@ sessions' (%.2f, %.2f, %.2f)",
                own.x, own.y, own.z, angle, whose, session.gesture.rawValue, usual.x, usual.y, usual.z))
    }

    /// The session's mean gravity direction while at rest (all rows when none is rest).
    static func restingGravity(_ session: RecordedSession) -> Vector3? {
        let rest = session.rows.filter(\.activity.isRest)
        let rows = rest.isEmpty ? session.rows[...] : rest[...]
        let sum = rows.reduce(Vector3.zero) { $0 + $1.motion.gravity }
        let direction = normalized(sum)
        return direction.x.isFinite && direction.y.isFinite && direction.z.isFinite ? direction : nil
    }

    /// Nearest-centroid: the session's signature against each gesture's median signature, its own
    /// gesture's computed without it, so a wrong session cannot pull its own gesture toward it.
    func wrongGesture(_ session: RecordedSession, signatures: [SessionID: [Double]]) -> Finding? {
        guard let own = signatures[session.id] else { return nil }
        var distances: [(gesture: ActivityLabel, distance: Double)] = []
        for gesture in dataset.gestures {
            let members = dataset.sessions.filter { $0.gesture == gesture && $0.id != session.id }.compactMap {
                signatures[$0.id]
            }
            guard members.count >= 2 else { continue }
            let centroid = own.indices.map { k in Statistics.median(members.map { $0[k] }) }
            distances.append(
                (gesture, zip(own, centroid).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()))
        }
        guard let nearest = distances.min(by: { $0.distance < $1.distance }), nearest.gesture != session.gesture,
            let ownDistance = distances.first(where: { $0.gesture == session.gesture })?.distance,
            ownDistance > rules.wrongGestureMargin * nearest.distance
        else { return nil }
        return Finding(
            .wrongGesture,
            String(
                format: "looks like %@, not %@ (distance %.1f to %@'s sessions, %.1f to %@'s)",
                nearest.gesture.rawValue, session.gesture.rawValue, nearest.distance,
                nearest.gesture.rawValue, ownDistance, session.gesture.rawValue))
    }

    static func degrees(_ a: Vector3, _ b: Vector3) -> Double {
        acos(max(-1, min(1, (a * b).sum()))) * 180 / .pi
    }

    static func normalized(_ v: Vector3) -> Vector3 { v / (v * v).sum().squareRoot() }
}
