import Glibc

/// The rejection's second test: how the motion has been lately, each feature's mean and spread
/// over about the last second, beside those of the gesture's training takes. The network's
/// embedding places motion it never saw near a taught gesture, since it learned only to tell the
/// taught ones apart; these plain statistics keep what it discards (where the watch points, how
/// hard each axis moves).
///
/// A window slot keeps moving averages of its windows' per-feature means and mean squares (of the
/// normalized features), `decay` of the past kept at each window, and their total weight, so the
/// first window's statistics are its own. The statistics (means, then spreads) are standardized
/// by `center` and `scale`; a window whose top class is a gesture and whose statistics are farther
/// (Euclidean) from all of that gesture's prototypes than its limit is unknown motion.
public struct MotionRejection: Sendable, Equatable, Codable {
    /// The share of the averages each window keeps: `exp(-window / (rate × timeConstant))`.
    public let decay: Float
    public let center: [Float]
    public let scale: [Float]
    /// `labels.count × center.count`, row-major, standardized.
    public let prototypes: [Float]
    public let labels: [Int]
    /// For each class, the distance beyond which a window whose top class it is is unknown
    /// motion; a class past its end, or without prototypes, is never rejected.
    public let limits: [Float]
    /// The share of a gesture's takes the limit may leave without a window near enough, or of its
    /// windows beyond it when it was set per window (`MotionCalibration.perWindow`).
    public let falseRejectRate: Double

    /// Seconds the averages reach back.
    public static let timeConstant = 1.0
    public static let prototypesPerClass = 32

    /// The statistics' length: a mean and a spread of each of `features`.
    static func dimension(features: Int) -> Int { 2 * features }

    /// Whether `averages` (a slot's state) make a window whose top class is `label` unknown motion.
    func rejects(_ averages: MotionAverages, as label: Int) -> Bool {
        label < limits.count && distance(averages.statistics(center: center, scale: scale), to: label) > limits[label]
    }

    /// The distance from standardized `statistics` to the nearest prototype of `label`; 0 for a
    /// class without any.
    func distance(_ statistics: [Float], to label: Int) -> Float {
        var nearest: Float? = nil
        let dimension = center.count
        for (row, prototypeLabel) in labels.enumerated() where prototypeLabel == label {
            var sum: Float = 0
            for index in 0..<dimension {
                let difference = statistics[index] - prototypes[row * dimension + index]
                sum += difference * difference
            }
            nearest = min(nearest ?? sum, sum)
        }
        return (nearest ?? 0).squareRoot()
    }
}

/// How the motion test's limits are set: the share of a gesture's takes (each person's, against
/// prototypes made without them) that may have no window within the limit, or with `perWindow` the
/// share of its windows beyond it, and whether one limit serves every gesture.
///
/// A take is found when one of its windows passes, so for gestures of a few seconds its nearest
/// window is what counts. A held gesture (an exercise, walking) is one long take whose nearest
/// window lies near some other person's whatever they did, so a limit set that way takes in
/// other motion too: there each window is measured.
public struct MotionCalibration: Sendable, Equatable {
    public var falseRejectRate: Double
    public var pooled: Bool
    public var perWindow: Bool

    public init(falseRejectRate: Double = 0, pooled: Bool = true, perWindow: Bool = false) {
        self.falseRejectRate = falseRejectRate
        self.pooled = pooled
        self.perWindow = perWindow
    }
}

/// A window slot's moving averages of its windows' per-feature means and mean squares, and their
/// total weight.
public struct MotionAverages: Sendable, Equatable {
    /// `2 × features`: the means' averages, then the mean squares'.
    public internal(set) var sums: [Float]
    public internal(set) var weight: Float = 0

    public init(features: Int) {
        sums = [Float](repeating: 0, count: 2 * features)
    }

    /// Takes in one window, `window.count / features` samples of `features` (normalized) values.
    mutating func add(_ window: UnsafeBufferPointer<Float>, decay: Float) {
        let features = sums.count / 2
        let samples = window.count / features
        for feature in 0..<features {
            var sum: Float = 0, squares: Float = 0
            for sample in 0..<samples {
                let value = window[sample * features + feature]
                sum += value
                squares += value * value
            }
            sums[feature] = decay * sums[feature] + (1 - decay) * sum / Float(samples)
            sums[features + feature] = decay * sums[features + feature] + (1 - decay) * squares / Float(samples)
        }
        weight = decay * weight + (1 - decay)
    }

    /// Each feature's mean, then its spread, standardized by `center` and `scale`.
    func statistics(center: [Float], scale: [Float]) -> [Float] {
        let features = sums.count / 2, weight = max(weight, .leastNormalMagnitude)
        let means = sums[..<features].map { $0 / weight }
        let spreads = (0..<features).map { max(sums[features + $0] / weight - means[$0] * means[$0], 0).squareRoot() }
        return zip(means + spreads, zip(center, scale)).map { ($0 - $1.0) / $1.1 }
    }
}

extension MotionRejection {
    /// The statistics of `gestures`' windows standardized, at most `prototypesPerClass` prototypes of
    /// each (k-means), and limits: each group (person) of `groups` left out in turn, prototypes made
    /// without it, its takes measured by their nearest window the network detects (by their nearest
    /// window when it detects none), or each of its windows when `perWindow`, and the
    /// distance within which `1 - falseRejectRate` of those lie taken, over all gestures when
    /// `pooled` (one limit), else a gesture's own. Nil without any gesture's windows.
    init?(
        windows: EmbeddedWindows, groups: [Int], gestures: [Int], classes: Int, decay: Float,
        calibration: MotionCalibration
    ) {
        let falseRejectRate = calibration.falseRejectRate
        let dimension = windows.motionDimension
        let rows = windows.labels.indices.filter { gestures.contains(windows.labels[$0]) }
        guard !rows.isEmpty, dimension > 0 else { return nil }
        let (center, scale) = Self.standardization(rows.map { windows.motion(of: $0) }, dimension: dimension)
        let points = windows.labels.indices.map { window in
            zip(windows.motion(of: window), zip(center, scale)).map { ($0 - $1.0) / $1.1 }
        }
        let prototypes = { (windows: [Int]) in
            kMeans(
                windows.flatMap { points[$0] }, dimension: dimension, clusters: Self.prototypesPerClass,
                spherical: false)
        }
        let fit = { (label: Int, prototypes: [Float]) in
            MotionRejection(
                decay: decay, center: center, scale: scale, prototypes: prototypes,
                labels: Array(repeating: label, count: prototypes.count / dimension), limits: [],
                falseRejectRate: falseRejectRate)
        }
        var fitted: [Float] = [], labels: [Int] = [], distances: [Int: [Float]] = [:]
        for label in gestures {
            let own = rows.filter { windows.labels[$0] == label }
            let all = prototypes(own)
            fitted += all
            labels += repeatElement(label, count: all.count / dimension)
            for group in Set(own.map { groups[$0] }) {
                let others = own.filter { groups[$0] != group }
                let model = fit(label, others.isEmpty ? all : prototypes(others))
                let measured = own.filter { groups[$0] == group }.map { window in
                    (window, model.distance(points[window], to: label))
                }
                distances[label, default: []] +=
                    calibration.perWindow ? measured.map(\.1) : Self.nearest(measured, windows: windows)
            }
        }
        let quantile = { (values: [Float]) -> Float? in
            values.isEmpty ? nil : values.sorted()[Int((Double(values.count - 1) * (1 - falseRejectRate)).rounded())]
        }
        let everyGesture = quantile(distances.values.flatMap { $0 })
        let limits = (0..<classes).map { label -> Float in
            guard gestures.contains(label),
                let limit = calibration.pooled ? everyGesture : quantile(distances[label] ?? [])
            else {
                return .greatestFiniteMagnitude
            }
            return limit
        }
        self.init(
            decay: decay, center: center, scale: scale, prototypes: fitted, labels: labels, limits: limits,
            falseRejectRate: falseRejectRate)
    }

    /// Each take's distance: its nearest window the network detects, or its nearest window when it
    /// detects none.
    private static func nearest(_ measured: [(window: Int, distance: Float)], windows: EmbeddedWindows) -> [Float] {
        var detected: [Int: Float] = [:], any: [Int: Float] = [:]
        for (window, distance) in measured {
            let take = windows.takes[window]
            any[take] = min(any[take] ?? distance, distance)
            if windows.detected[window] { detected[take] = min(detected[take] ?? distance, distance) }
        }
        return any.map { take, distance in detected[take] ?? distance }
    }

    /// Each dimension's mean and standard deviation (at least 1e-3, so a constant one stays finite).
    private static func standardization(_ rows: [ArraySlice<Float>], dimension: Int) -> ([Float], [Float]) {
        let count = Float(rows.count)
        let center = (0..<dimension).map { index in rows.reduce(0) { $0 + $1[$1.startIndex + index] } / count }
        let scale = (0..<dimension).map { index in
            let variance =
                rows.reduce(0) { sum, row in
                    let difference = row[row.startIndex + index] - center[index]
                    return sum + difference * difference
                } / count
            return max(variance.squareRoot(), 1e-3)
        }
        return (center, scale)
    }

    /// The share of the averages a window keeps, for windows of `window` samples at `rate` Hz.
    static func decay(window: Int, rate: Double) -> Float {
        Float(exp(-Double(window) / (rate * timeConstant)))
    }
}

extension GestureModel {
    /// Each window's motion statistics (means, then spreads, not standardized) in `sequences`, as a
    /// window slot streaming each sequence has them after that window: `windowCount × 2 × features`.
    func motionStatistics(of sequences: [LabeledSequence], decay: Float) -> [Float] {
        let identity = (
            [Float](repeating: 0, count: MotionRejection.dimension(features: featureNames.count)),
            [Float](repeating: 1, count: MotionRejection.dimension(features: featureNames.count))
        )
        return sequences.flatMap { sequence in
            let size = windowing.window * sequence.featureCount
            var features = sequence.features
            features.withUnsafeMutableBufferPointer { normalization.apply(to: $0) }
            let windows = windowing.windowCount(samples: sequence.sampleCount)
            features += repeatElement(0, count: windows * size - features.count)
            var averages = MotionAverages(features: sequence.featureCount)
            return features.withUnsafeBufferPointer { features in
                (0..<windows).flatMap { window in
                    averages.add(
                        UnsafeBufferPointer(rebasing: features[window * size..<(window + 1) * size]), decay: decay)
                    return averages.statistics(center: identity.0, scale: identity.1)
                }
            }
        }
    }
}
