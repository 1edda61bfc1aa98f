import FoundationEssentials
import GestureCore
import GestureMotion
import Glibc

/// Made-up sessions for benchmarks and tests: each session performs one class, a noisy oscillation
/// whose frequency and per-feature amplitude depend on the class, so a model can learn them.
public struct SyntheticSessions: Sendable {
    public var sessions: Int
    public var totalSamples: Int
    public var featureCount: Int
    public var classCount: Int
    public var seed: UInt64

    public init(sessions: Int, totalSamples: Int, featureCount: Int, classCount: Int, seed: UInt64 = 1) {
        precondition(sessions > 0 && totalSamples >= sessions && featureCount > 0 && classCount > 0)
        self.sessions = sessions
        self.totalSamples = totalSamples
        self.featureCount = featureCount
        self.classCount = classCount
        self.seed = seed
    }

    /// The sessions, round-robin over classes and over four users; lengths differ by at most one.
    public func make() -> [LabeledSequence] {
        var random = Xoshiro256(seed: seed)
        return (0..<sessions).map { index in
            let samples = totalSamples / sessions + (index < totalSamples % sessions ? 1 : 0)
            let label = index % classCount
            let frequency = 0.02 + 0.03 * Float(label)
            var features = [Float](repeating: 0, count: samples * featureCount)
            let phase = 2 * Float.pi * random.unitFloat()
            for sample in 0..<samples {
                for feature in 0..<featureCount {
                    let amplitude = 1 + Float((label + feature) % classCount) / Float(classCount)
                    let angle = 2 * Float.pi * frequency * Float(sample) + phase + Float(feature)
                    features[sample * featureCount + feature] =
                        amplitude * sin(angle) + 0.3 * (random.unitFloat() - 0.5)
                }
            }
            // Users are plain names, which UserID always accepts.
            let user = try! UserID("user\(index % 4)")
            return LabeledSequence(
                session: SessionID(start: "synthetic", take: index), user: user,
                featureCount: featureCount, features: features,
                labels: [Int](repeating: label, count: samples))
        }
    }
}
