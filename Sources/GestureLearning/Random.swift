/// xoshiro256**, seeded through SplitMix64: fast, and its sequence depends only on the seed, so the
/// same seed trains the same model bit for bit (the standard library promises neither).
struct Xoshiro256: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var mix = seed
        func splitMix() -> UInt64 {
            mix &+= 0x9e37_79b9_7f4a_7c15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    mutating func next() -> UInt64 {
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
    mutating func unitFloat() -> Float {
        Float(next() >> 40) * 0x1p-24
    }

    /// Uniform in 0..<bound; the modulo's bias is below 2⁻⁴⁰ for the bounds used here.
    mutating func index(below bound: Int) -> Int {
        Int((next() >> 11) % UInt64(bound))
    }

    /// Fisher–Yates, written out so that the order depends on nothing but the generator.
    mutating func shuffle<Element>(_ elements: inout [Element]) {
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            elements.swapAt(index, self.index(below: index + 1))
        }
    }
}

private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
}
