extension StringProtocol {
    /// Without the whitespace and newlines at either end.
    public var trimmed: SubSequence {
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? startIndex
        return self[startIndex..<end].drop { $0.isWhitespace }
    }
}

extension Double {
    /// The shortest text that reads back as this value, without a trailing ".0": 100, 0.5, 1e-05.
    public var shortText: String {
        let text = description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
