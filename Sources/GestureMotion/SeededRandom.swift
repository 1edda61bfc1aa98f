import FoundationEssentials
import Glibc

/// A small, fast generator whose sequence depends only on its seed (SplitMix64).
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one purpose, so that adding draws elsewhere does not change this one.
    public init(seed: UInt64, _ parts: String...) {
        var hash = seed ^ 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1f}").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        state = hash
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A uniform draw from `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// A normal draw (Box–Muller).
    public mutating func normal(mean: Double = 0, deviation: Double = 1) -> Double {
        let u = Double.random(in: Double.ulpOfOne...1, using: &self)
        let v = Double.random(in: 0..<1, using: &self)
        return mean + deviation * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
