import Foundation
import GestureCore

/// A few numbers that tell gestures apart whoever performs them and however the device is turned:
/// how strongly the device rotates and accelerates about each of its axes (log standard deviation,
/// so that a vigorous and a gentle person differ less than two gestures), and how fast it oscillates.
enum MotionSignature {
    static let features = Array(Feature.all[3..<6]) + Array(Feature.all[9..<12])

    static func of(_ session: RecordedSession) -> [Double]? {
        let rows = session.gestureRows
        guard rows.count >= 4 else { return nil }
        var signature = features.map { feature in log(Statistics.deviation(rows.map(feature.value(of:))) + 1e-3) }
        let strongest = features.max { a, b in
            Statistics.deviation(rows.map(a.value(of:))) < Statistics.deviation(rows.map(b.value(of:)))
        }!
        signature.append(log(crossingRate(rows.map(strongest.value(of:)), duration: session.duration) + 0.1))
        return signature.allSatisfy(\.isFinite) ? signature : nil
    }

    /// Mean crossings per second.
    private static func crossingRate(_ values: [Double], duration: Double) -> Double {
        let mean = Statistics.mean(values)
        let crossings = zip(values, values.dropFirst()).filter { ($0 - mean) * ($1 - mean) < 0 }.count
        return duration > 0 ? Double(crossings) / duration : 0
    }

    /// Signatures scaled so that every number has unit spread over the dataset.
    static func standardized(_ dataset: Dataset) -> [SessionID: [Double]] {
        let raw = dataset.sessions.compactMap { session in of(session).map { (session.id, $0) } }
        guard let width = raw.first?.1.count else { return [:] }
        let spread = (0..<width).map { k in max(1e-9, Statistics.deviation(raw.map { $0.1[k] })) }
        return Dictionary(
            raw.map { id, signature in (id, zip(signature, spread).map { $0 / $1 }) },
            uniquingKeysWith: { first, _ in first })
    }
}
