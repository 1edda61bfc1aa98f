import FoundationEssentials

/// One line of JSON Lines, every command's `--json` output: keys sorted, infinities and NaN as strings.
public func jsonLine(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
