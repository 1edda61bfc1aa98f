#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level pieces of CSV reading that allocate nothing.
enum CSVBytes {
    static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// The number a field holds, as `Double(String)` reads it, bit for bit.
    ///
    /// Plain decimals with at most 19 significant digits are read in one pass: exactly by
    /// Clinger's fast path when digits and power of ten are both exact in a Double, else by the
    /// Eisel–Lemire algorithm (D. Lemire, "Number parsing at a gigabyte per second", 2021), which
    /// gives the correctly rounded result or declines. The rest (more digits, exponents beyond
    /// ±64, inf, nan, hexadecimal) and whatever it declines go to the C library's strtod.
    static func double(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let start = field.baseAddress, !field.isEmpty else { return nil }
        let end = start + field.count
        var p = start
        let negative = p.pointee == UInt8(ascii: "-")
        if negative { p += 1 }
        let digitsStart = p
        var mantissa: UInt64 = 0
        readDigits(&p, end, into: &mantissa)
        var digitCount = p - digitsStart
        var exponent = 0
        if p < end, p.pointee == UInt8(ascii: ".") {
            p += 1
            let fractionStart = p
            readDigits(&p, end, into: &mantissa)
            exponent = fractionStart - p
            digitCount += p - fractionStart
        }
        guard digitCount > 0 else { return strtodDouble(field) }
        if p < end {
            guard p.pointee | 0x20 == UInt8(ascii: "e"), let written = smallExponent(p + 1, end) else {
                return strtodDouble(field)
            }
            exponent += written
        }
        if digitCount > 19, significantDigits(digitsStart, p) > 19 { return strtodDouble(field) }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            let value =
                exponent < 0
                ? Double(mantissa) / exactPowersOfTen[-exponent] : Double(mantissa) * exactPowersOfTen[exponent]
            return negative ? -value : value
        }
        return eiselLemire(mantissa, exponent, negative: negative) ?? strtodDouble(field)
    }

    /// Appends the digits at `p` to `value`, eight at a time while there are eight, and moves past them.
    /// Overflow wraps: callers check the digit count.
    @inline(__always)
    private static func readDigits(
        _ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, into value: inout UInt64
    ) {
        while end - p >= 8 {
            let chunk = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self).littleEndian
            guard areEightDigits(chunk) else { break }
            value = value &* 100_000_000 &+ eightDigits(chunk)
            p += 8
        }
        while p < end, p.pointee &- 48 < 10 {
            value = value &* 10 &+ UInt64(p.pointee &- 48)
            p += 1
        }
    }

    /// Whether all eight bytes are ASCII digits: no byte below '0' or above '9'.
    @inline(__always)
    private static func areEightDigits(_ chunk: UInt64) -> Bool {
        ((chunk &+ 0x4646_4646_4646_4646) | (chunk &- 0x3030_3030_3030_3030)) & 0x8080_8080_8080_8080 == 0
    }

    /// Eight ASCII digits, first digit in the lowest byte, as a number: pairs, then quads, then all.
    @inline(__always)
    private static func eightDigits(_ chunk: UInt64) -> UInt64 {
        var value = chunk &- 0x3030_3030_3030_3030
        value = (value &* 10) &+ (value >> 8)
        let pairs = value & 0x0000_00FF_0000_00FF
        let nextPairs = (value >> 16) & 0x0000_00FF_0000_00FF
        return (pairs &* (100 &+ (1_000_000 << 32)) &+ nextPairs &* (1 &+ (10_000 << 32))) >> 32
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// Digits from the first non-zero one, the decimal point skipped.
    private static func significantDigits(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int {
        var p = start
        while p < end, p.pointee == UInt8(ascii: "0") || p.pointee == UInt8(ascii: ".") { p += 1 }
        var count = 0
        while p < end, p.pointee != UInt8(ascii: "e"), p.pointee != UInt8(ascii: "E") {
            if p.pointee != UInt8(ascii: ".") { count += 1 }
            p += 1
        }
        return count
    }

    /// An exponent's optional sign and one to three digits, to the end of the field.
    private static func smallExponent(_ start: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int? {
        var p = start
        var sign = 1
        if p < end, p.pointee == UInt8(ascii: "-") || p.pointee == UInt8(ascii: "+") {
            if p.pointee == UInt8(ascii: "-") { sign = -1 }
            p += 1
        }
        guard p < end, end - p <= 3 else { return nil }
        var value = 0
        while p < end {
            guard p.pointee &- 48 < 10 else { return nil }
            value = value * 10 + Int(p.pointee &- 48)
            p += 1
        }
        return sign * value
    }

    /// w × 10^q correctly rounded, from a 128-bit approximation of 5^q; nil when that
    /// approximation cannot decide the rounding.
    private static func eiselLemire(_ w: UInt64, _ q: Int, negative: Bool) -> Double? {
        guard PowersOfFive.range.contains(q) else { return nil }
        let index = q - PowersOfFive.range.lowerBound
        var leadingZeros = w.leadingZeroBitCount
        let i = w << leadingZeros
        var (upper, lower) = i.multipliedFullWidth(by: PowersOfFive.high[index])
        if upper & 0x1FF == 0x1FF, lower &+ i < lower {
            let (middle2, productLow) = i.multipliedFullWidth(by: PowersOfFive.low[index])
            let middle = lower &+ middle2
            if middle < lower { upper &+= 1 }
            if middle &+ 1 == 0, upper & 0x1FF == 0x1FF, productLow &+ i < productLow { return nil }
            lower = middle
        }
        let upperBit = Int(upper >> 63)
        var mantissa = upper >> (upperBit + 9)
        leadingZeros += 1 ^ upperBit
        // Exactly halfway between two Doubles: the truncated product cannot say which way to round.
        if lower == 0, upper & 0x1FF == 0, mantissa & 3 == 1 { return nil }
        mantissa += mantissa & 1
        mantissa >>= 1
        if mantissa >= 1 << 53 {
            mantissa = 1 << 52
            leadingZeros -= 1
        }
        mantissa &= ~(1 << 52)
        let biasedExponent = (((152_170 + 65_536) * q) >> 16) + 1024 + 63 - leadingZeros
        guard biasedExponent >= 1, biasedExponent <= 2046 else { return nil }
        return Double(bitPattern: mantissa | UInt64(biasedExponent) << 52 | (negative ? 1 << 63 : 0))
    }

    /// strtod on a NUL-terminated copy; Swift's own parser refuses leading whitespace, so must this.
    private static func strtodDouble(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let first = field.first, first > 0x20 else { return nil }
        // Double(String) reads a C string: it would stop at a NUL and take the digits before it.
        guard field.count < 64 else {
            return field.contains(0) ? nil : Double(String(decoding: field, as: UTF8.self))
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            for (k, byte) in field.enumerated() { buffer[k] = CChar(bitPattern: byte) }
            buffer[field.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            return end == buffer.baseAddress! + field.count ? value : nil
        }
    }
}
