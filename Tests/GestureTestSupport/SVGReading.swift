import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An SVG file read back as XML: its elements with their attributes, the texts with their words,
/// and the geometry tests check: text boxes, plot frames and line runs.
public final class SVGReading: NSObject, XMLParserDelegate {
    public struct Element: Sendable {
        public var name: String
        public var attributes: [String: String]
        /// The characters inside, for a text.
        public var content = ""

        public func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }
    }

    public private(set) var elements: [Element] = []
    private var inText = false

    public init(_ text: String) throws {
        super.init()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = self
        guard parser.parse() else { throw NotWellFormed(error: String(describing: parser.parserError)) }
    }

    public struct NotWellFormed: Error { public var error: String }

    public var root: Element { elements[0] }
    public var size: (width: Double, height: Double) { (root.number("width") ?? 0, root.number("height") ?? 0) }
    public var texts: [Element] { elements.filter { $0.name == "text" } }
    public func named(_ name: String) -> [Element] { elements.filter { $0.name == name } }

    /// The plot areas of line charts: the rectangles drawn without fill.
    public var frames: [Box] {
        named("rect").filter { $0.attributes["fill"] == "none" }.map {
            Box(
                minX: $0.number("x")!, minY: $0.number("y")!, maxX: $0.number("x")! + $0.number("width")!,
                maxY: $0.number("y")! + $0.number("height")!)
        }
    }

    /// Each path's runs of points: a run starts at each `M`.
    public var pathRuns: [[[(x: Double, y: Double)]]] {
        named("path").map { path in
            path.attributes["d", default: ""].split(separator: "M").map { run in
                run.split(separator: "L").map { pair in
                    let xy = pair.trimmingCharacters(in: .whitespaces).split(separator: ",").map { Double($0)! }
                    return (xy[0], xy[1])
                }
            }
        }
    }

    /// Where a text's letters can reach, at most: 0.65 em a character, 0.8 em above the baseline
    /// and 0.25 em below, turned a quarter counter-clockwise when rotated.
    public static func box(of text: Element) -> Box {
        let size = text.number("font-size") ?? 11, x = text.number("x")!, y = text.number("y")!
        let width = Double(text.content.count) * size * 0.65
        let start: Double =
            switch text.attributes["text-anchor"] {
            case "middle": -width / 2
            case "end": -width
            default: 0
            }
        let along = (start, start + width), across = (-0.8 * size, 0.25 * size)
        guard text.attributes["transform"]?.hasPrefix("rotate(-90") == true else {
            return Box(minX: x + along.0, minY: y + across.0, maxX: x + along.1, maxY: y + across.1)
        }
        return Box(minX: x + across.0, minY: y - along.1, maxX: x + across.1, maxY: y - along.0)
    }

    public func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(Element(name: name, attributes: attributes))
        inText = name == "text"
    }

    public func parser(
        _ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?
    ) {
        inText = false
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard inText else { return }
        elements[elements.count - 1].content += string
    }
}

/// A rectangle by its edges.
public struct Box: Sendable, CustomStringConvertible {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public func overlaps(_ other: Box) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    public func isInside(width: Double, height: Double) -> Bool {
        minX >= 0 && minY >= 0 && maxX <= width && maxY <= height
    }

    public var description: String { "(\(Int(minX)), \(Int(minY)))–(\(Int(maxX)), \(Int(maxY)))" }
}

extension SVGReading {
    /// Texts that reach beyond the canvas, and pairs of texts that overlap: none in a clean picture.
    public var misplacedTexts: [String] {
        let boxes = texts.map { ($0.content, Self.box(of: $0)) }
        let outside = boxes.filter { !$0.1.isInside(width: size.width, height: size.height) }.map {
            "'\($0.0)' at \($0.1) leaves the \(Int(size.width))×\(Int(size.height)) canvas"
        }
        let overlapping = boxes.indices.flatMap { i in
            boxes.indices.filter { $0 > i && boxes[i].1.overlaps(boxes[$0].1) }.map {
                "'\(boxes[i].0)' at \(boxes[i].1) overlaps '\(boxes[$0].0)' at \(boxes[$0].1)"
            }
        }
        return outside + overlapping
    }
}
