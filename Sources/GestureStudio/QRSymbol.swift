/// A QR code's grid as it is built: the function patterns (finders, timing, alignment, format and
/// version information), the codewords in their zigzag, and a mask over the rest.
struct Symbol {
    let version: Int
    private(set) var modules: [[Bool]]
    /// Modules of the function patterns, which data and masks leave alone.
    private var reserved: [[Bool]]

    var size: Int { modules.count }

    init(version: Int) {
        self.version = version
        let size = 17 + 4 * version
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        reserved = modules
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (row, column) in [(3, 3), (3, size - 4), (size - 4, 3)] { finder(row, column) }
        let centres = Self.alignmentCentres(version: version)
        let corners = [(centres.first, centres.first), (centres.first, centres.last), (centres.last, centres.first)]
        for row in centres {
            for column in centres where !corners.contains(where: { $0 == row && $1 == column }) {
                alignment(row, column)
            }
        }
        format(mask: 0)
        if version >= 7 { versionInformation() }
    }

    /// Data and error correction bits, up the columns and down again in pairs from the bottom right.
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                for column in [right, right - 1] {
                    let row = (right + 1) & 2 == 0 ? size - 1 - step : step
                    guard !reserved[row][column], bit < codewords.count * 8 else { continue }
                    modules[row][column] = (codewords[bit >> 3] >> (7 - bit & 7)) & 1 == 1
                    bit += 1
                }
            }
            right -= 2
        }
    }

    mutating func apply(mask: Int) {
        for row in 0..<size {
            for column in 0..<size where !reserved[row][column] && Self.masks(mask, row, column) {
                modules[row][column].toggle()
            }
        }
        format(mask: mask)
    }

    /// The eight masks: whether the module at `row`, `column` flips.
    private static func masks(_ mask: Int, _ row: Int, _ column: Int) -> Bool {
        switch mask {
        case 0: (row + column) % 2 == 0
        case 1: row % 2 == 0
        case 2: column % 3 == 0
        case 3: (row + column) % 3 == 0
        case 4: (row / 2 + column / 3) % 2 == 0
        case 5: row * column % 2 + row * column % 3 == 0
        case 6: (row * column % 2 + row * column % 3) % 2 == 0
        default: ((row + column) % 2 + row * column % 3) % 2 == 0
        }
    }

    /// How hard the symbol is to read: runs, blocks, finder-like patterns, and an unbalanced share of dark.
    var penalty: Int {
        let columns = (0..<size).map { column in modules.map { $0[column] } }
        var total = 0
        for line in modules + columns {
            var run = 1
            for index in 1...line.count {
                if index < line.count, line[index] == line[index - 1] {
                    run += 1
                    continue
                }
                if run >= 5 { total += run - 2 }
                run = 1
            }
            let finderLike: [[Bool]] = [
                [true, false, true, true, true, false, true, false, false, false, false],
                [false, false, false, false, true, false, true, true, true, false, true],
            ]
            for start in 0...(line.count - 11) where finderLike.contains(Array(line[start..<start + 11])) {
                total += 40
            }
        }
        for row in 0..<(size - 1) {
            for column in 0..<(size - 1) {
                let colour = modules[row][column]
                if modules[row][column + 1] == colour, modules[row + 1][column] == colour,
                    modules[row + 1][column + 1] == colour
                {
                    total += 3
                }
            }
        }
        let dark = modules.joined().filter { $0 }.count
        let cells = size * size
        total += ((abs(dark * 20 - cells * 10) + cells - 1) / cells - 1) * 10
        return total
    }

    private mutating func set(_ row: Int, _ column: Int, _ dark: Bool) {
        modules[row][column] = dark
        reserved[row][column] = true
    }

    /// A finder pattern centred on `row`, `column`, with its light separator.
    private mutating func finder(_ row: Int, _ column: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let (r, c) = (row + dy, column + dx)
                guard (0..<size).contains(r), (0..<size).contains(c) else { continue }
                let ring = max(abs(dx), abs(dy))
                set(r, c, ring != 2 && ring != 4)
            }
        }
    }

    private mutating func alignment(_ row: Int, _ column: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(row + dy, column + dx, max(abs(dx), abs(dy)) != 1) }
        }
    }

    /// Level L and the mask, with their BCH code, in both places; and the dark module.
    private mutating func format(mask: Int) {
        let data = 0b01 << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(index, 8, bit(index)) }
        set(7, 8, bit(6))
        set(8, 8, bit(7))
        set(8, 7, bit(8))
        for index in 9..<15 { set(8, 14 - index, bit(index)) }
        for index in 0..<8 { set(8, size - 1 - index, bit(index)) }
        for index in 8..<15 { set(size - 15 + index, 8, bit(index)) }
        set(size - 8, 8, true)
    }

    /// The version and its BCH code, in both corners, from version 7.
    private mutating func versionInformation() {
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let dark = (bits >> index) & 1 == 1
            let (near, far) = (index / 3, size - 11 + index % 3)
            set(near, far, dark)
            set(far, near, dark)
        }
    }

    private static func alignmentCentres(version: Int) -> [Int] {
        guard version > 1 else { return [] }
        let last = 4 * version + 10
        return version < 7 ? [6, last] : [6, (6 + last) / 2, last]
    }
}
