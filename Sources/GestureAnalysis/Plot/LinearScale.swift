import Foundation

/// Maps a range of data values onto a range of pixels, with round tick values for its axis.
public struct LinearScale: Sendable {
    public var domain: ClosedRange<Double>
    public var pixels: ClosedRange<Double>
    /// Pixels grow the other way, as a y axis does.
    public var flipped: Bool

    public init(domain: ClosedRange<Double>, pixels: ClosedRange<Double>, flipped: Bool = false) {
        let span = Self.halfSpan(domain)
        self.domain = span > 0 && span.isFinite ? domain : (domain.lowerBound - 0.5)...(domain.lowerBound + 0.5)
        self.pixels = pixels
        self.flipped = flipped
    }

    /// Far off the page a line is clipped anyway; clamping there keeps every coordinate printable.
    public func callAsFunction(_ value: Double) -> Double {
        let fraction = (value / 2 - domain.lowerBound / 2) / Self.halfSpan(domain)
        let span = pixels.upperBound - pixels.lowerBound
        let pixel = flipped ? pixels.upperBound - fraction * span : pixels.lowerBound + fraction * span
        return min(max(pixel, -Self.farthestPixel), Self.farthestPixel)
    }

    /// About `count` values at 1, 2 or 5 times a power of ten, inside the domain, at least
    /// `minimumStep` apart (1 for whole numbers such as epochs).
    public func ticks(_ count: Int = 5, minimumStep: Double = 0) -> [Double] {
        let rough = max(minimumStep, Self.halfSpan(domain) / Double(max(1, count)) * 2)
        let power = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        guard step.isFinite else { return [] }
        let first = (domain.lowerBound / step).rounded(.up)
        let last = (domain.upperBound / step).rounded(.down)
        guard first <= last else { return [] }
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    private static let farthestPixel = 1e9

    /// Half the domain's width: the whole width of one from -1.7e308 to 1.7e308 is not a Double.
    private static func halfSpan(_ domain: ClosedRange<Double>) -> Double {
        domain.upperBound / 2 - domain.lowerBound / 2
    }
}
