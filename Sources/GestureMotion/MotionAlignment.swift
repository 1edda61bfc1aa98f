import GestureCore

/// Where a take's gesture was actually made, as `MotionAlignment` finds it.
public enum AlignedMotion: Sendable, Equatable {
    /// The first and last moving samples' times, seconds since the session started.
    case motion(ClosedRange<Double>)
    /// Nothing moved inside the prompt: the take was interrupted, or the person did not move.
    case noMotion
    /// Too little rest outside the prompt to tell motion from stillness; the labels are left alone.
    case noRest
}

/// Finds where a gesture's motion starts and ends in a take, against the take's own rest.
///
/// Each sample's motion is its rotation rate's and acceleration magnitude's distance from their
/// medians at rest, in units of twice the rest's median distance (with a floor, so that a perfectly
/// still sensor's quantisation noise does not count as motion): the median, unlike a high
/// percentile, holds while up to half the rest fidgets. That is averaged over `smoothing`
/// seconds centred on the sample; a sample moves when the average exceeds `threshold`. Moving
/// stretches closer than `bridge` join (a shake or a steering wheel slows to a stop at each turn),
/// stretches shorter than `shortest` are bumps, and the gesture runs from the first to the last
/// stretch that overlaps the prompt. Rest is every sample before the prompt and every sample more
/// than `lateness` after it: people react late and stop late.
public struct MotionAlignment: Sendable {
    public var smoothing = 0.1
    public var threshold = 2.0
    public var bridge = 0.5
    public var shortest = 0.15
    public var lateness = 1.5
    /// Rest needed, in samples, before motion can be told from it.
    public var leastRest = 10
    /// The smallest rest spread counted: well above a 16-bit sensor's noise, well below a gesture.
    public var rotationFloor = 0.05
    public var accelerationFloor = 0.02

    public init() {}

    /// The motion in `rows` (one session's, in time order) that overlaps `prompt`, seconds since
    /// the session started.
    public func align(_ rows: [RecordingRow], prompt: ClosedRange<Double>) -> AlignedMotion {
        let rest = rows.filter { $0.timestamp < prompt.lowerBound || $0.timestamp > prompt.upperBound + lateness }
        guard rest.count >= leastRest else { return .noRest }
        let energy = smoothed(RestModel(rest, floors: (rotationFloor, accelerationFloor)).energy(of: rows), rows)
        let stretches = movingStretches(energy, rows).filter {
            $0.upperBound >= prompt.lowerBound && $0.lowerBound <= prompt.upperBound
        }
        guard let first = stretches.first, let last = stretches.last else { return .noMotion }
        return .motion(first.lowerBound...last.upperBound)
    }

    /// The bursts of motion in a whole recording made without prompts, against its own stillness:
    /// its rest is all of it, which the medians tell from motion while motion is under half of it.
    public func bursts(in rows: [RecordingRow]) -> [ClosedRange<Double>] {
        guard rows.count >= leastRest else { return [] }
        return movingStretches(
            smoothed(RestModel(rows, floors: (rotationFloor, accelerationFloor)).energy(of: rows), rows), rows)
    }

    /// Each value averaged with its neighbours within half `smoothing` either side, by time.
    private func smoothed(_ values: [Double], _ rows: [RecordingRow]) -> [Double] {
        var sums = [0.0]
        sums.reserveCapacity(values.count + 1)
        for value in values { sums.append(sums.last! + value) }
        var low = 0
        var high = 0
        return rows.indices.map { index in
            let time = rows[index].timestamp
            while rows[low].timestamp < time - smoothing / 2 { low += 1 }
            while high + 1 < rows.count, rows[high + 1].timestamp <= time + smoothing / 2 { high += 1 }
            return (sums[high + 1] - sums[low]) / Double(high + 1 - low)
        }
    }

    /// The stretches of time that move, joined across short pauses, bumps left out.
    private func movingStretches(_ energy: [Double], _ rows: [RecordingRow]) -> [ClosedRange<Double>] {
        var stretches: [ClosedRange<Double>] = []
        var start: Double?
        var last = 0.0
        for (row, value) in zip(rows, energy) {
            if value > threshold {
                if start == nil { start = row.timestamp }
                last = row.timestamp
            } else if let from = start {
                stretches.append(from...last)
                start = nil
            }
        }
        if let start { stretches.append(start...last) }
        var joined: [ClosedRange<Double>] = []
        for stretch in stretches {
            if let previous = joined.last, stretch.lowerBound - previous.upperBound < bridge {
                joined[joined.count - 1] = previous.lowerBound...stretch.upperBound
            } else {
                joined.append(stretch)
            }
        }
        return joined.filter { $0.upperBound - $0.lowerBound >= shortest }
    }
}

/// How a take's rest moves: its median rotation rate and acceleration magnitude, and how far from
/// them rest strays. The magnitude, unlike the attitude filter's user acceleration, has no tail
/// after a gesture while the filter's gravity settles, and does not change as the hand tilts.
private struct RestModel {
    let rotation: Vector3
    let acceleration: Double
    let rotationSpread: Double
    let accelerationSpread: Double

    init(_ rest: [RecordingRow], floors: (rotation: Double, acceleration: Double)) {
        let rotation = Vector3(
            rest.map(\.motion.rotationRate.x).median ?? 0, rest.map(\.motion.rotationRate.y).median ?? 0,
            rest.map(\.motion.rotationRate.z).median ?? 0)
        let acceleration = rest.map { Self.magnitude($0.rawAcceleration) }.median ?? 0
        self.rotation = rotation
        self.acceleration = acceleration
        rotationSpread = max(
            floors.rotation, Self.spread(rest.map { Self.magnitude($0.motion.rotationRate - rotation) }))
        accelerationSpread = max(
            floors.acceleration, Self.spread(rest.map { abs(Self.magnitude($0.rawAcceleration) - acceleration) }))
    }

    /// Each row's distance from rest, in units of rest's spread: the larger of rotation and acceleration.
    func energy(of rows: [RecordingRow]) -> [Double] {
        rows.map { row in
            max(
                Self.magnitude(row.motion.rotationRate - rotation) / rotationSpread,
                abs(Self.magnitude(row.rawAcceleration) - acceleration) / accelerationSpread)
        }
    }

    private static func magnitude(_ v: Vector3) -> Double { (v * v).sum().squareRoot() }

    private static func spread(_ distances: [Double]) -> Double { 2 * (distances.median ?? 0) }
}
