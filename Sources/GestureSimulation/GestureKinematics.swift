import GestureCore
import GestureMotion

/// How the simulated hand performs a gesture: turns about the device's axes and moves along them.
///
/// - shake: 4–5 shakes a second along the device's x axis, ±4–6 cm (2–5 g), with a wrist twist;
/// - chop: 1.5–2 chops a second, the device pitching down about its x axis and dropping 15–20 cm;
/// - drive: a steering wheel turned left and right about the device's z axis, about 0.5 Hz, ±50°.
/// An everyday motion's name (walk, type, …) gets that motion (`EverydayMotion`); any other gesture
/// name gets a motion of its own, derived from the name.
struct GestureKinematics: Sendable {
    static let known: [ActivityLabel] = [.shake, .chop, .drive]

    /// Turns about the device's axes (radians) and moves along them (metres).
    typealias Parts = (turns: [(axis: Vector3, burst: Burst)], moves: [(axis: Vector3, burst: Burst)])

    var turns: [(axis: Vector3, burst: Burst)]
    var moves: [(axis: Vector3, burst: Burst)]
    var span: Range<Double>

    init(
        _ gesture: ActivityLabel, start: Double, end: Double, tempo: Double, amplitude: Double,
        random: inout SeededRandom
    ) {
        span = start..<end
        let burst = Self.bursts(start: start, end: end, tempo: tempo, amplitude: amplitude)
        if let everyday = EverydayMotion(rawValue: gesture.rawValue) {
            (turns, moves) = everyday.parts(&random, burst: burst)
        } else {
            (turns, moves) = Self.parts(of: gesture, &random, burst: burst)
        }
    }

    init(
        _ motion: EverydayMotion, start: Double, end: Double, tempo: Double, amplitude: Double,
        random: inout SeededRandom
    ) {
        span = start..<end
        (turns, moves) = motion.parts(
            &random, burst: Self.bursts(start: start, end: end, tempo: tempo, amplitude: amplitude))
    }

    private static func parts(
        of gesture: ActivityLabel, _ random: inout SeededRandom, burst: (Double, Double, Burst.Shape) -> Burst
    ) -> Parts {
        let phase = random.uniform(0...0.6)
        switch gesture.rawValue {
        case "shake":
            return (
                [([0, 1, 0], burst(0.2, 4.5, .sine(phase: phase + 0.5)))],
                [([1, 0, 0], burst(0.05, 4.5, .sine(phase: phase)))]
            )
        case "chop":
            return ([([1, 0, 0], burst(-1.1, 1.7, .pulse))], [([0, 0, 1], burst(-0.18, 1.7, .pulse))])
        case "drive":
            return ([([0, 0, 1], burst(0.9, 0.5, .sine(phase: phase)))], [])
        default:
            var style = SeededRandom(seed: 0, "gesture", gesture.rawValue)
            let axes: [Vector3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
            let hertz = style.uniform(0.7...3)
            let turn = (axes.randomElement(using: &style)!, burst(style.uniform(0.4...1), hertz, .sine(phase: phase)))
            return ([turn], [(axes.randomElement(using: &style)!, burst(style.uniform(0.02...0.1), hertz, .pulse))])
        }
    }

    /// Makes the bursts of one motion from `start` to `end`: `size` scaled by the amplitude, `hertz` by the tempo.
    private static func bursts(
        start: Double, end: Double, tempo: Double, amplitude: Double
    ) -> (Double, Double, Burst.Shape) -> Burst {
        let ramp = min(0.15, (end - start) / 4)
        return { size, hertz, shape in
            Burst(
                amplitude: size * amplitude, frequency: hertz * tempo, shape: shape, start: start, end: end, ramp: ramp)
        }
    }

    func isActive(at t: Double) -> Bool { span.contains(t) }

    func apply(to pose: inout Pose, at t: Double) {
        for (axis, burst) in moves {
            pose.move(along: axis, metresPerSecondSquared: burst.evaluate(t).acceleration)
        }
        for (axis, burst) in turns {
            pose.turn(about: axis, burst.evaluate(t))
        }
    }
}
