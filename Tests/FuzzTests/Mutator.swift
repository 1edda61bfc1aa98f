import GestureMotion

/// Makes inputs from a seed input the way a careless tool or a hostile user would: bytes flipped,
/// dropped, repeated or swapped for the tokens parsers trip on, lines cut and doubled.
struct Mutator {
    private var random: SeededRandom

    /// What a number, a name or a separator can turn into.
    static let tokens: [String] = [
        "", "0", "-0", "nan", "NaN", "inf", "-inf", "1e309", "1e-320", "1e300", "-1", "99999999999999999999",
        ",", ",,", "\n", "\r\n", "\r", "\u{0}", "\u{FEFF}", "=", "#", " ", "\t", "\"", "-", "/", "..", "é", "\u{7f}",
        String(repeating: "9", count: 80), String(repeating: "x", count: 300),
    ]

    init(seed: UInt64, format: String) { random = SeededRandom(seed: seed, "fuzz", format) }

    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...Int(random.next() % 4) { apply(&bytes) }
        return bytes
    }

    private mutating func apply(_ bytes: inout [UInt8]) {
        let at = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count))
        switch random.next() % 7 {
        case 0 where !bytes.isEmpty: bytes[at] ^= UInt8(1 << (random.next() % 8))
        case 1 where !bytes.isEmpty: bytes.remove(at: at)
        case 2:
            let token = Self.tokens[Int(random.next() % UInt64(Self.tokens.count))]
            let length = bytes.isEmpty ? 0 : min(bytes.count - at, Int(random.next() % 12))
            bytes.replaceSubrange(at..<at + length, with: Array(token.utf8))
        case 3:
            let length = min(bytes.count - at, 1 + Int(random.next() % 200))
            bytes.insert(contentsOf: bytes[at..<at + length], at: at)
        case 4: bytes.removeSubrange(at..<min(bytes.count, at + 1 + Int(random.next() % 400)))
        case 5: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
        default:
            // A line of the input repeated, or cut short.
            let lineStart = bytes[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
            let lineEnd = bytes[at...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
            if random.next() % 2 == 0 {
                bytes.insert(contentsOf: bytes[lineStart..<lineEnd], at: lineEnd)
            } else {
                bytes.removeSubrange(at..<lineEnd)
            }
        }
    }
}
