#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StringProtocol {
    /// Without the whitespace and newlines at either end.
    public var trimmed: SubSequence {
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? startIndex
        return self[startIndex..<end].drop { $0.isWhitespace }
    }
}

extension StringProtocol {
    /// The text as an error message may quote it: at most `limit` characters, control characters
    /// escaped, so that a 20 MB line or a NUL byte still gives a one-line message.
    public func quoted(limit: Int = 40) -> String {
        var shown = ""
        for scalar in unicodeScalars {
            guard shown.count < limit else { return shown + "… (\(utf8.count) bytes)" }
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return shown
    }
}

extension Int {
    /// The count with its noun, singular for one: "1 take", "3 takes", "2 false detections".
    public func counting(_ noun: String, plural: String? = nil) -> String {
        "\(self) \(self == 1 ? noun : plural ?? noun + "s")"
    }
}

extension Double {
    /// Six significant digits at most, without a trailing ".0", as "%g" prints a rate: 100, 0.5, 33.3333.
    public var shortText: String {
        guard isFinite, magnitude < 1e15 else { return description }
        guard self != 0 else { return "0" }
        let scale = pow(10, 5 - floor(log10(magnitude)))
        let text = ((self * scale).rounded() / scale).description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// With `digits` digits after the point, rounded half away from zero (where "%.Nf" would round
    /// an exact half to even).
    public func fixed(_ digits: Int) -> String {
        guard isFinite else { return description }
        let scale = (0..<digits).reduce(UInt64(1)) { product, _ in product * 10 }
        let units = UInt64((magnitude * Double(scale)).rounded())
        let fraction = String(units % scale)
        let sign = self < 0 && units > 0 ? "-" : ""
        let whole = "\(sign)\(units / scale)"
        return digits == 0 ? whole : whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}

extension Double {
    /// As `fixed`, with the sign always written, as "%+.Nf" prints: "+0.500", "-1.250".
    public func signedFixed(_ digits: Int) -> String {
        let text = fixed(digits)
        return text.hasPrefix("-") || !isFinite ? text : "+" + text
    }
}

extension StringProtocol {
    /// Right-aligned in `width` columns, as "%8s" prints; longer text is left whole.
    public func aligningRight(to width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - count)) + self
    }

    /// Left-aligned in `width` columns, as "%-8s" prints; longer text is left whole.
    public func aligningLeft(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}

extension String {
    /// The least number of characters inserted, deleted, replaced or swapped with a neighbour to
    /// turn this into `other` (optimal string alignment).
    public func editDistance(to other: String) -> Int {
        let a = Array(self), b = Array(other)
        guard !a.isEmpty, !b.isEmpty else { return Swift.max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = Swift.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = Swift.min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
