import GestureTestSupport
import Testing

@testable import GestureCore

/// The CSV reader's own number parser against Swift's, bit for bit.
@Suite struct NumberParsingTests {
    private func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { CSVBytes.double($0) }
    }

    private func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
        default: false
        }
    }

    @Test func shortestFormsOfRandomDoublesReadBackExactly() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let magnitude = Double.random(in: -30...30, using: &generator)
            let value = Double.random(in: -1...1, using: &generator) * pow10(magnitude)
            let text = "\(value)"
            if !same(parse(text), Double(text)) { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func randomDigitStringsReadAsSwiftReadsThem() {
        var generator = SystemRandomNumberGenerator()
        var mismatches: [String] = []
        for _ in 0..<200_000 {
            let digits = String(
                (0..<Int.random(in: 1...22, using: &generator)).map { _ in
                    "0123456789".randomElement(using: &generator)!
                })
            var text = digits
            if Bool.random(using: &generator) {
                text.insert(
                    ".", at: text.index(text.startIndex, offsetBy: Int.random(in: 0...digits.count, using: &generator)))
            }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -70...70, using: &generator))" }
            if Bool.random(using: &generator) { text = "-" + text }
            if !same(parse(text), Double(text)) { mismatches.append(text) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test(arguments: [
        "", "-", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "0x1p-3", "inf", "-nan", "+7", "1e400", "4.9e-324",
        "2.4703282292062328e-324",
        "9007199254740993", "1.00000000000000011102230246251565404236316680908203125", "0.1e-30",
    ])
    func edgeCasesReadAsSwiftReadsThem(_ text: String) {
        #expect(
            same(parse(text), Double(text)),
            "\(text): \(String(describing: parse(text))) vs \(String(describing: Double(text)))")
    }

    private func pow10(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(abs(exponent)) { result *= exponent < 0 ? 0.1 : 10 }
        return result
    }
}
