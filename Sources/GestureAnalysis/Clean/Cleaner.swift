import GestureArchive
import GestureCore
import GestureStore

/// Finds the sessions a person recorded wrongly or a sensor spoiled, and says why.
public struct Cleaner: Sendable {
    public var rules: CleaningRules

    public init(rules: CleaningRules = CleaningRules()) { self.rules = rules }

    public func badSessions(in dataset: Dataset) -> [BadSession] {
        let single = SessionChecks(rules: rules)
        let group = GroupChecks(rules: rules, dataset: dataset)
        let gravity = Dictionary(
            dataset.sessions.compactMap { s in GroupChecks.restingGravity(s).map { (s.id, $0) } },
            uniquingKeysWith: { first, _ in first })
        let signatures = MotionSignature.standardized(dataset)
        return dataset.sessions.compactMap { session in
            let findings =
                single.findings(session)
                + [group.orientation(session, gravity: gravity), group.wrongGesture(session, signatures: signatures)]
                .compactMap { $0 }
            return findings.isEmpty
                ? nil
                : BadSession(session: session.id, user: session.user, gesture: session.gesture, findings: findings)
        }
    }

    /// Discards the bad sessions the catalog knows, through the archive, so `gesture restore` undoes it.
    /// Returns the sessions it could not discard because the catalog does not hold them.
    public func discard(_ bad: [BadSession], archive: Archive) throws(AnalysisError) -> [BadSession] {
        do {
            let known = Set(try archive.catalog.sessions(SessionFilter(ids: bad.map(\.session))).map(\.id))
            for session in bad where known.contains(session.session) {
                try archive.discard([session.session], reason: "gesture clean: \(session.reasons)")
            }
            return bad.filter { !known.contains($0.session) }
        } catch {
            throw AnalysisError(error.description)
        }
    }
}
