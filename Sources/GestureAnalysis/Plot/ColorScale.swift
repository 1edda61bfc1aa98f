import Foundation

/// A colour as red, green and blue from 0 to 1.
public struct RGB: Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(hex: UInt32) {
        red = Double(hex >> 16 & 0xFF) / 255
        green = Double(hex >> 8 & 0xFF) / 255
        blue = Double(hex & 0xFF) / 255
    }

    init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public var hex: String {
        "#" + [red, green, blue].map { String(format: "%02x", Int(($0 * 255).rounded())) }.joined()
    }

    /// Relative luminance (WCAG), 0 for black to 1 for white.
    public var luminance: Double {
        func linear(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// Text that reads on this colour: near-black or white, whichever contrasts more (they are even
    /// at a luminance of about 0.21).
    public var textColor: String { luminance > 0.21 ? "#222" : "#fff" }

    func mixed(with other: RGB, _ fraction: Double) -> RGB {
        RGB(
            red: red + (other.red - red) * fraction, green: green + (other.green - green) * fraction,
            blue: blue + (other.blue - blue) * fraction)
    }
}

/// Values from 0 to 1 as colours along a ramp of evenly spaced stops, lightness changing steadily.
public struct ColorScale: Sendable {
    public var stops: [RGB]

    /// ColorBrewer's sequential Blues, matplotlib's and seaborn's "Blues": near-white to dark blue.
    public static let blues = ColorScale(
        stops: [0xF7FBFF, 0xDEEBF7, 0xC6DBEF, 0x9ECAE1, 0x6BAED6, 0x4292C6, 0x2171B5, 0x08519C, 0x08306B].map(
            RGB.init(hex:)))

    /// The colour of a value, clamped to 0...1; NaN is the lowest.
    public func callAsFunction(_ value: Double) -> RGB {
        let position = (value.isNaN ? 0 : min(1, max(0, value))) * Double(stops.count - 1)
        let lower = Int(position.rounded(.down))
        guard lower < stops.count - 1 else { return stops[stops.count - 1] }
        return stops[lower].mixed(with: stops[lower + 1], position - Double(lower))
    }
}
