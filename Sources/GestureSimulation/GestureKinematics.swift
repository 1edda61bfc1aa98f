import GestureCore
import GestureMotion

/// How the simulated hand performs a gesture: turns about the device's axes and moves along them.
///
/// - shake: 4–5 shakes a second along the device's x axis, ±4–6 cm (2–5 g), with a wrist twist;
/// - chop: 1.5–2 chops a second, the device pitching down about its x axis and dropping 15–20 cm;
/// - drive: a steering wheel turned left and right about the device's z axis, about 0.5 Hz, ±50°.
/// Any other gesture name gets a motion of its own, derived from the name.
struct GestureKinematics: Sendable {
    static let known: [ActivityLabel] = [.shake, .chop, .drive]

    var turns: [(axis: Vector3, burst: Burst)] = []
    var moves: [(axis: Vector3, burst: Burst)] = []
    var span: Range<Double>

    init(
        _ gesture: ActivityLabel, start: Double, end: Double, tempo: Double, amplitude: Double,
        random: inout SeededRandom
    ) {
        span = start..<end
        let ramp = min(0.15, (end - start) / 4)
        func burst(_ size: Double, _ hertz: Double, _ shape: Burst.Shape) -> Burst {
            Burst(
                amplitude: size * amplitude, frequency: hertz * tempo, shape: shape, start: start, end: end, ramp: ramp)
        }
        let phase = random.uniform(0...0.6)
        switch gesture.rawValue {
        case "shake":
            moves.append(([1, 0, 0], burst(0.05, 4.5, .sine(phase: phase))))
            turns.append(([0, 1, 0], burst(0.2, 4.5, .sine(phase: phase + 0.5))))
        case "chop":
            turns.append(([1, 0, 0], burst(-1.1, 1.7, .pulse)))
            moves.append(([0, 0, 1], burst(-0.18, 1.7, .pulse)))
        case "drive":
            turns.append(([0, 0, 1], burst(0.9, 0.5, .sine(phase: phase))))
        default:
            var style = SeededRandom(seed: 0, "gesture", gesture.rawValue)
            let axes: [Vector3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
            let hertz = style.uniform(0.7...3)
            turns.append(
                (axes.randomElement(using: &style)!, burst(style.uniform(0.4...1), hertz, .sine(phase: phase))))
            moves.append((axes.randomElement(using: &style)!, burst(style.uniform(0.02...0.1), hertz, .pulse)))
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
