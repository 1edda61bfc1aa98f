import Foundation

/// An SVG image built from a few primitives, written as text: no library, nothing to install.
public struct SVGDocument: Sendable {
    public let width: Double
    public let height: Double
    private var elements: [String] = []

    /// A canvas of whole pixels, as a screen or PNG has: the size given, rounded up.
    public init(width: Double, height: Double) {
        self.width = width.rounded(.up)
        self.height = height.rounded(.up)
        rect(x: 0, y: 0, width: width, height: height, fill: "white")
    }

    /// The width a line of text takes at most: 0.65 em a character, the widest of sans-serif
    /// fonts' average letters and digits, so text laid out by it never runs into its neighbours.
    public static func textWidth(_ text: String, size: Double) -> Double {
        Double(text.count) * size * 0.65
    }

    /// The text, shortened with an ellipsis if it is wider than `width`.
    public static func fitted(_ text: String, width: Double, size: Double) -> String {
        let characters = Int(width / (size * 0.65))
        return text.count <= characters ? text : text.prefix(max(0, characters - 1)) + "…"
    }

    public mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double = 1, stroke: String? = nil
    ) {
        elements.append(
            "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(fill)\""
                + (opacity < 1 ? " fill-opacity=\"\(n(opacity))\"" : "") + (stroke.map { " stroke=\"\($0)\"" } ?? "")
                + "/>")
    }

    public mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false
    ) {
        elements.append(
            "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
                + (dashed ? " stroke-dasharray=\"4 3\"" : "") + "/>")
    }

    /// One line through each run of points, unconnected to the next run: a break where data is missing.
    public mutating func path(_ runs: [[(x: Double, y: Double)]], stroke: String, width: Double = 1.3) {
        let commands = runs.filter { !$0.isEmpty }.map { run in
            "M" + run.map { "\(n($0.x)),\(n($0.y))" }.joined(separator: " L")
        }
        guard !commands.isEmpty else { return }
        elements.append(
            "<path d=\"\(commands.joined(separator: " "))\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\" stroke-linejoin=\"round\"/>"
        )
    }

    /// A gradient from the bottom (the first colour) to the top (the last), for `fill: "url(#id)"`.
    public mutating func verticalGradient(id: String, colors: [String]) {
        let stops = colors.enumerated().map { index, color in
            "<stop offset=\"\(Double(index) / Double(max(1, colors.count - 1)))\" stop-color=\"\(color)\"/>"
        }
        elements.append(
            "<defs><linearGradient id=\"\(id)\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\(stops.joined())</linearGradient></defs>"
        )
    }

    public enum Anchor: String, Sendable { case start, middle, end }

    public mutating func text(
        _ text: String, x: Double, y: Double, size: Double = 11, anchor: Anchor = .start,
        color: String = "#222", rotated: Bool = false
    ) {
        let rotation = rotated ? " transform=\"rotate(-90 \(n(x)) \(n(y)))\"" : ""
        elements.append(
            "<text x=\"\(n(x))\" y=\"\(n(y))\" font-family=\"sans-serif\" font-size=\"\(n(size))\" "
                + "text-anchor=\"\(anchor.rawValue)\" fill=\"\(color)\"\(rotation)>\(Self.escape(text))</text>")
    }

    public var text: String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))">
        \(elements.joined(separator: "\n"))
        </svg>

        """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Coordinates to a tenth of a pixel: enough for the eye, and it keeps files small.
    private func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// The colours of every plot GestureLab draws, its SVGs and the studio's pages alike: one per axis,
/// one per gesture, apart on white and for most colour-blind readers (Okabe–Ito).
public enum Palette {
    /// x, y and z, wherever an axis is drawn.
    public static let axes = ["#D55E00", "#009E73", "#0072B2"]
    /// Lines in order: the axes' first, so that x, y and z drawn in that order keep their colours.
    public static let colors = axes + ["#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
    /// Gestures' bands, drawn at `bandOpacity` under the lines: each gesture its own.
    public static let gestures = ["#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#8C6D31", "#7F7F7F"]
    public static let bandOpacity = 0.3

    public static func color(_ index: Int) -> String { colors[index % colors.count] }

    /// The colour of the axis a feature's name ends with (`accelX`, `rawGyroZ`), if it names one.
    public static func axisColor(of feature: String) -> String? {
        ["X", "Y", "Z"].firstIndex { feature.hasSuffix($0) }.map { axes[$0] }
    }

    /// Each gesture's band colour: the gestures in name order take the colours in turn, so that the
    /// studio and `gesture plot` of one recordings folder agree.
    public static func gestureColors(_ names: some Sequence<String>) -> [String: String] {
        Dictionary(
            Set(names).sorted().enumerated().map { ($1, gestures[$0 % gestures.count]) },
            uniquingKeysWith: { a, _ in a })
    }
}
