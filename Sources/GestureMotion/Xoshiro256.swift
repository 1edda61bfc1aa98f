/// xoshiro256**, seeded through SplitMix64 (`SeededRandom`): training's generator, for its long
/// period; its sequence depends only on the seed, so the same seed trains the same model bit for bit
/// (the standard library promises neither).
///
/// Inlinable: training draws a dropout mask from it a batch at a time, and a call per draw cost
/// more than the draw.
public struct Xoshiro256: RandomNumberGenerator, Sendable {
    @usableFromInline var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var mix = SeededRandom(seed: seed)
        state = (mix.next(), mix.next(), mix.next(), mix.next())
    }

    @inlinable public mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, 45)
        return result
    }

    /// Uniform in [0, 1), with the 24 bits a Float holds.
    @inlinable public mutating func unitFloat() -> Float {
        Float(next() >> 40) * 0x1p-24
    }

    /// Uniform in 0..<bound; the modulo's bias is below 2⁻⁴⁰ for the bounds used here.
    public mutating func index(below bound: Int) -> Int {
        Int((next() >> 11) % UInt64(bound))
    }

    /// Fisher–Yates, written out so that the order depends on nothing but the generator.
    public mutating func shuffle<Element>(_ elements: inout [Element]) {
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            elements.swapAt(index, self.index(below: index + 1))
        }
    }
}

@inlinable func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
}
