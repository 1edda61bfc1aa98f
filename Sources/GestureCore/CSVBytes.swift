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
    /// Plain decimals with at most 19 digits whose value and power of ten are both exact in a
    /// Double are one correctly rounded multiplication or division (Clinger's fast path); all
    /// else, like 17-digit shortest forms, goes to the C library's correctly rounded strtod.
    static func double(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        fastDouble(field) ?? strtodDouble(field)
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    private static func fastDouble(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let negative = field.first == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var scale = 0
        var seenPoint = false
        var seenDigit = false
        while i < field.count {
            let byte = field[i]
            if byte &- 48 < 10 {
                guard digits < 19 else { return nil }
                seenDigit = true
                if mantissa != 0 || byte != 48 { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(byte &- 48)
                if seenPoint { scale -= 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            i += 1
        }
        guard seenDigit else { return nil }
        if i < field.count {
            guard field[i] | 0x20 == UInt8(ascii: "e"), let exponent = smallInteger(field, from: i + 1) else { return nil }
            scale += exponent
        }
        guard mantissa <= 1 << 53, abs(scale) <= 22 else { return nil }
        var value = Double(mantissa)
        value = scale < 0 ? value / powersOfTen[-scale] : value * powersOfTen[scale]
        return negative ? -value : value
    }

    /// An exponent: an optional sign and one to three digits, to the end of the field.
    private static func smallInteger(_ field: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        var sign = 1
        if i < field.count, field[i] == UInt8(ascii: "-") || field[i] == UInt8(ascii: "+") {
            sign = field[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
        }
        guard i < field.count, field.count - i <= 3 else { return nil }
        var value = 0
        while i < field.count {
            guard field[i] &- 48 < 10 else { return nil }
            value = value * 10 + Int(field[i] &- 48)
            i += 1
        }
        return sign * value
    }

    /// strtod on a NUL-terminated copy; Swift's own parser refuses leading whitespace, so must this.
    private static func strtodDouble(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let first = field.first, first > 0x20, field.count < 64 else {
            return field.count >= 64 ? Double(String(decoding: field, as: UTF8.self)) : nil
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
