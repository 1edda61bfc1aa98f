import GestureCore
import GestureMotion

/// Motion of daily life that is no gesture, as a wrist-worn sensor feels it; what a detector must
/// not fire on.
///
/// - walk: the arm swings about the shoulder at half the step rate (0.8–1 Hz, ±20°) and the body
///   bounces at the step rate (1.6–2.1 Hz, ±2 cm), so the acceleration's magnitude beats at ~2 Hz;
/// - type: the wrist rests while the fingers tap, a tremble of a millimetre and a few tenths of a degree at 3–6 Hz;
/// - reach: the hand goes forward 30 cm and back, turning a little, once every 2 s;
/// - scratch: short strokes of 1 cm sideways at 4–6 Hz, close to a shake's speed but a fifth of its size;
/// - turn-wrist: the forearm rolls (pronation and supination) about ±50° at 0.6–0.9 Hz;
/// - pick-up: the hand goes down 20 cm, tips forward to grasp, and comes back up, once every 1.7 s.
public enum EverydayMotion: String, Sendable, CaseIterable {
    case walk
    case type
    case reach
    case scratch
    case turnWrist = "turn-wrist"
    case pickUp = "pick-up"

    /// The motions a list such as `walk,type` or `all` names.
    public static func list(_ spec: String) throws(SensorError) -> [EverydayMotion] {
        var motions: [EverydayMotion] = []
        for item in spec.split(separator: ",").map({ $0.trimmed }) where !item.isEmpty {
            if item == "all" { return allCases }
            guard let motion = EverydayMotion(rawValue: String(item)) else {
                let known = allCases.map(\.rawValue).joined(separator: ", ")
                throw SensorError(device: "sim", reason: "unknown everyday motion '\(item)'; known: \(known), all")
            }
            motions.append(motion)
        }
        return motions
    }

    /// The seconds one bout of it lasts, at random.
    func boutLength(_ random: inout SeededRandom) -> Double {
        self == .walk ? random.uniform(8...20) : random.uniform(2...6)
    }

    /// Its turns and moves, each made by `burst(size, hertz, shape)`: a turn's size in radians, a move's in metres.
    func parts(_ random: inout SeededRandom, burst: (Double, Double, Burst.Shape) -> Burst) -> GestureKinematics.Parts {
        let phase = random.uniform(0...6.28)
        switch self {
        case .walk:
            let step = random.uniform(1.6...2.1)
            return (
                [([0, 1, 0], burst(random.uniform(0.25...0.4), step / 2, .sine(phase: phase)))],
                [
                    ([1, 0, 0], burst(random.uniform(0.08...0.12), step / 2, .sine(phase: phase))),
                    ([0, 0, 1], burst(random.uniform(0.015...0.025), step, .sine(phase: 2 * phase))),
                ]
            )
        case .type:
            let tap = random.uniform(3...6)
            return (
                [([1, 0, 0], burst(random.uniform(0.003...0.008), tap, .sine(phase: phase)))],
                [([0, 0, 1], burst(random.uniform(0.0005...0.0015), tap, .pulse))]
            )
        case .reach:
            return (
                [([1, 0, 0], burst(random.uniform(0.2...0.4), 0.5, .pulse))],
                [([1, 0, 0], burst(random.uniform(0.25...0.35), 0.5, .pulse))]
            )
        case .scratch:
            let stroke = random.uniform(4...6)
            return (
                [([1, 0, 0], burst(random.uniform(0.04...0.1), stroke, .sine(phase: phase)))],
                [([0, 1, 0], burst(random.uniform(0.007...0.012), stroke, .sine(phase: phase)))]
            )
        case .turnWrist:
            return ([([1, 0, 0], burst(random.uniform(0.6...1), random.uniform(0.6...0.9), .sine(phase: phase)))], [])
        case .pickUp:
            return (
                [([0, 1, 0], burst(random.uniform(0.4...0.7), 0.6, .pulse))],
                [([0, 0, 1], burst(-random.uniform(0.15...0.25), 0.6, .pulse))]
            )
        }
    }
}

/// A person's day between gestures: bouts of everyday motion with pauses between them, laid out
/// in blocks of 30 s that each depend only on the seed, the person and the block, so any stretch of
/// it can be read in any order.
struct EverydayRoutine: Sendable {
    static let block = 30.0

    var motions: [EverydayMotion]
    var seed: UInt64
    var holder: UserID
    var hand: Hand

    /// The block holding `t`.
    func block(at t: Double) -> Int { Int((t / Self.block).rounded(.down)) }

    /// The bouts of a block. A person's walking pace varies less than their gestures' speed, so
    /// the hand's tempo counts half.
    func bouts(inBlock index: Int) -> [GestureKinematics] {
        guard !motions.isEmpty else { return [] }
        var random = SeededRandom(seed: seed, "everyday", holder.rawValue, "\(index)")
        let (from, to) = (Double(index) * Self.block, Double(index + 1) * Self.block)
        var bouts: [GestureKinematics] = []
        var start = from + random.uniform(0.3...2)
        while true {
            let motion = motions.randomElement(using: &random)!
            let end = start + motion.boutLength(&random)
            guard end < to else { break }
            bouts.append(
                GestureKinematics(
                    motion, start: start, end: end, tempo: (1 + hand.tempo) / 2 * (1 + random.normal(deviation: 0.04)),
                    amplitude: hand.amplitude * (1 + random.normal(deviation: 0.1)), random: &random))
            start = end + random.uniform(0.5...4)
        }
        return bouts
    }
}
