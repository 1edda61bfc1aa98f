import FoundationEssentials
import Glibc

/// A smooth burst of motion: a wave shape under an envelope that ramps in and out, with its first
/// and second derivatives, so that angles, rates and accelerations of the simulated hand agree.
struct Burst: Sendable {
    enum Shape: Sendable {
        /// sin(ωτ + phase).
        case sine(phase: Double)
        /// (1 − cos ωτ) / 2: from rest to the amplitude and back, once a period.
        case pulse
        /// 1: the envelope alone, a move to the amplitude and back.
        case hold
    }

    var amplitude: Double
    var frequency: Double
    var shape: Shape
    var start: Double
    var end: Double
    var ramp: Double

    /// Value, first and second derivative at `t`.
    func evaluate(_ t: Double) -> (value: Double, rate: Double, acceleration: Double) {
        guard t > start, t < end else { return (0, 0, 0) }
        let (e, de, dde) = envelope(t)
        let omega = 2 * Double.pi * frequency
        let tau = t - start
        let s, ds, dds: Double
        switch shape {
        case .sine(let phase):
            s = sin(omega * tau + phase)
            ds = omega * cos(omega * tau + phase)
            dds = -omega * omega * s
        case .pulse:
            s = (1 - cos(omega * tau)) / 2
            ds = omega * sin(omega * tau) / 2
            dds = omega * omega * cos(omega * tau) / 2
        case .hold:
            (s, ds, dds) = (1, 0, 0)
        }
        return (
            amplitude * e * s,
            amplitude * (de * s + e * ds),
            amplitude * (dde * s + 2 * de * ds + e * dds)
        )
    }

    /// Smoothstep up over `ramp` after the start and down over `ramp` before the end.
    private func envelope(_ t: Double) -> (Double, Double, Double) {
        let rising = t - start < ramp
        let falling = end - t < ramp
        guard rising || falling else { return (1, 0, 0) }
        let u = rising ? (t - start) / ramp : (end - t) / ramp
        let sign = rising ? 1.0 : -1.0
        return (
            u * u * (3 - 2 * u),
            sign * 6 * u * (1 - u) / ramp,
            (6 - 12 * u) / (ramp * ramp)
        )
    }
}

/// A steady oscillation that never ends: the sway and tremor of a hand holding still.
struct Sway: Sendable {
    var amplitude: Double
    var frequency: Double
    var phase: Double

    func evaluate(_ t: Double) -> (value: Double, rate: Double) {
        let omega = 2 * Double.pi * frequency
        return (amplitude * sin(omega * t + phase), amplitude * omega * cos(omega * t + phase))
    }
}
