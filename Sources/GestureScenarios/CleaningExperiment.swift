import Foundation
import GestureAnalysis
import GestureCore
import GestureMotion
import GestureRecording
import GestureSimulation
import GestureStore

/// Simulated recordings with faults injected into chosen takes, and how well cleaning finds them:
/// the measurement behind `gesture-bench clean`.
public struct FaultyRecordings: Sendable {
    public var users: [UserID]
    public var gestures: [ActivityLabel]
    public var takes: Int
    /// The chance that a take gets one of the simulated sensor's faults.
    public var faultRate: Double
    public var seed: UInt64
    public var rate: Double

    public init(
        users: [UserID], gestures: [ActivityLabel] = [.shake, .chop, .drive], takes: Int = 5,
        faultRate: Double = 0.2, seed: UInt64 = 1, rate: Double = 100
    ) {
        self.users = users
        self.gestures = gestures
        self.takes = takes
        self.faultRate = faultRate
        self.seed = seed
        self.rate = rate
    }

    /// Records every user's takes of every gesture into `folder`; returns the fault of each faulty session.
    public func record(into folder: RecordingsFolder) async throws -> [SessionID: SimulatedFaults.Kind] {
        var random = SeededRandom(seed: seed, "faulty recordings")
        var truth: [SessionID: SimulatedFaults.Kind] = [:]
        var date = Date(timeIntervalSince1970: 1_800_000_000)
        for user in users {
            for gesture in gestures {
                var spec: [String] = []
                var faulty: [Int: SimulatedFaults.Kind] = [:]
                for take in 1...takes where random.uniform(0...1) < faultRate {
                    let kind = SimulatedFaults.Kind.allCases.randomElement(using: &random)!
                    faulty[take] = kind
                    spec.append("\(kind.rawValue)@\(take)")
                }
                let plan = try SessionPlan(user: user, gesture: gesture, takes: takes)
                let sensor = SimulatedSensor(
                    seed: seed, holder: user, faults: try SimulatedFaults(spec.joined(separator: ",")))
                let outcome = try await recordQuietly(plan, sensor: sensor, rate: rate, folder: folder, date: date)
                for record in outcome.sessions { truth[record.id] = faulty[record.take] }
                date += plan.duration + 60
            }
        }
        return truth
    }
}

/// Precision and recall of cleaning's findings against the faults that were injected.
public struct CleaningScore: Sendable {
    public var truePositives: Int
    public var falsePositives: Int
    public var falseNegatives: Int
    /// By fault: the faulty sessions flagged, those flagged with the finding the fault should cause, and all.
    public var foundByFault: [SimulatedFaults.Kind: (found: Int, named: Int, of: Int)]

    /// The finding each simulated fault should lead to.
    public static let expectedFinding: [SimulatedFaults.Kind: Finding.Kind] = [
        .wrongGesture: .wrongGesture, .upsideDown: .orientation, .deadAxis: .flatLine, .droppedSamples: .timing,
    ]

    public init(found: [BadSession], truth: [SessionID: SimulatedFaults.Kind]) {
        let flagged = Dictionary(
            found.map { ($0.session, Set($0.findings.map(\.kind))) }, uniquingKeysWith: { $0.union($1) })
        truePositives = flagged.keys.filter { truth[$0] != nil }.count
        falsePositives = flagged.count - truePositives
        falseNegatives = truth.keys.filter { flagged[$0] == nil }.count
        foundByFault = Dictionary(grouping: truth, by: \.value).mapValues { sessions in
            (
                sessions.filter { flagged[$0.key] != nil }.count,
                sessions.filter { flagged[$0.key]?.contains(Self.expectedFinding[$0.value]!) == true }.count,
                sessions.count
            )
        }
    }

    public var precision: Double { Double(truePositives) / Double(max(1, truePositives + falsePositives)) }
    public var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
}
