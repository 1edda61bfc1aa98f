/// A QR code (ISO/IEC 18004) of a text: byte mode, error correction level L, versions 1 to 10 (up
/// to 271 bytes), the mask with the lowest penalty. Enough for the studio's address, for a phone's
/// camera to read off the terminal.
public struct QRCode: Sendable {
    /// Modules, rows first; true is dark.
    public private(set) var modules: [[Bool]]
    public var size: Int { modules.count }

    public init(_ text: String) throws(StudioError) {
        let bytes = Array(text.utf8)
        guard let version = Self.versions.firstIndex(where: { Self.fits(bytes.count, in: $0) }) else {
            throw StudioError("\(bytes.count) bytes are too many for a QR code of version 10")
        }
        let layout = Self.versions[version]
        var symbol = Symbol(version: version + 1)
        symbol.place(Self.codewords(Self.data(bytes, layout: layout), layout: layout))
        let masked = (0..<8).map { mask in
            var candidate = symbol
            candidate.apply(mask: mask)
            return candidate
        }
        modules = masked.min { $0.penalty < $1.penalty }!.modules
    }

    /// The code in a terminal: two rows of modules a line in half blocks, black on white with a
    /// quiet zone of four modules, whatever the terminal's own colours.
    public func terminalLines() -> [String] {
        let quiet = 4
        let span = -quiet..<(size + quiet)
        func dark(_ row: Int, _ column: Int) -> Bool {
            (0..<size).contains(row) && (0..<size).contains(column) && modules[row][column]
        }
        return stride(from: -quiet, to: size + quiet, by: 2).map { row in
            let line = span.map { column in
                switch (dark(row, column), dark(row + 1, column)) {
                case (false, false): " "
                case (true, false): "▀"
                case (false, true): "▄"
                case (true, true): "█"
                }
            }.joined()
            return "\u{1B}[30;107m" + line + "\u{1B}[0m"
        }
    }

    /// One version's codewords at level L: data per block, error correction per block.
    struct Layout {
        var blocks: [Int]
        var correction: Int
        var data: Int { blocks.reduce(0, +) }
    }

    static let versions: [Layout] = [
        Layout(blocks: [19], correction: 7), Layout(blocks: [34], correction: 10),
        Layout(blocks: [55], correction: 15), Layout(blocks: [80], correction: 20),
        Layout(blocks: [108], correction: 26), Layout(blocks: [68, 68], correction: 18),
        Layout(blocks: [78, 78], correction: 20), Layout(blocks: [97, 97], correction: 24),
        Layout(blocks: [116, 116], correction: 30), Layout(blocks: [68, 68, 69, 69], correction: 18),
    ]

    /// Bits of the character count in byte mode: 8 up to version 9, 16 from 10.
    private static func countBits(_ layout: Layout) -> Int { layout.data > 232 ? 16 : 8 }

    private static func fits(_ count: Int, in layout: Layout) -> Bool {
        4 + countBits(layout) + 8 * count <= 8 * layout.data
    }

    /// Mode, count, bytes, terminator and padding: the data codewords.
    private static func data(_ bytes: [UInt8], layout: Layout) -> [UInt8] {
        var bits: [Bool] = []
        func append(_ value: Int, _ count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
        }
        append(0b0100, 4)
        append(bytes.count, countBits(layout))
        for byte in bytes { append(Int(byte), 8) }
        let capacity = 8 * layout.data
        append(0, min(4, capacity - bits.count))
        append(0, (8 - bits.count % 8) % 8)
        var codewords = stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(UInt8(0)) { $0 << 1 | ($1 ? 1 : 0) }
        }
        for pad in 0..<(layout.data - codewords.count) { codewords.append(pad % 2 == 0 ? 0xEC : 0x11) }
        return codewords
    }

    /// The data split into blocks, each with its Reed–Solomon codewords, interleaved.
    private static func codewords(_ data: [UInt8], layout: Layout) -> [UInt8] {
        var start = 0
        let blocks = layout.blocks.map { count in
            defer { start += count }
            return Array(data[start..<start + count])
        }
        let corrections = blocks.map { ReedSolomon.remainder(of: $0, degree: layout.correction) }
        var out: [UInt8] = []
        for index in 0..<(layout.blocks.max() ?? 0) {
            for block in blocks where index < block.count { out.append(block[index]) }
        }
        for index in 0..<layout.correction {
            for correction in corrections { out.append(correction[index]) }
        }
        return out
    }
}

/// Arithmetic in GF(256) modulo x⁸ + x⁴ + x³ + x² + 1, and the remainder that makes a block a
/// Reed–Solomon codeword.
enum ReedSolomon {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var product = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            if (b >> bit) & 1 == 1 { product ^= Int(a) }
        }
        return UInt8(product)
    }

    /// The `degree` error correction codewords of `data`: its remainder by ∏(x − αⁱ), i < degree.
    static func remainder(of data: [UInt8], degree: Int) -> [UInt8] {
        var generator = [UInt8](repeating: 0, count: degree)
        generator[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                generator[index] = multiply(generator[index], root)
                if index + 1 < degree { generator[index] ^= generator[index + 1] }
            }
            root = multiply(root, 2)
        }
        var remainder = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ remainder.removeFirst()
            remainder.append(0)
            for index in 0..<degree { remainder[index] ^= multiply(generator[index], factor) }
        }
        return remainder
    }
}
