import CLearningKernels
import GestureCore

/// The model's "none of these": a window whose embedding lies farther from every prototype of its
/// top class than the training windows of that class mostly do is unknown motion. Each gesture
/// class keeps at most `prototypesPerClass` prototypes of unit length (spherical k-means of its
/// training windows' embeddings), and a limit of its own: the cosine distance to them below which
/// `1 - falseRejectRate` of those windows lie (classes spread differently, so one limit for all
/// would reject the wider ones' takes). A class without prototypes (rest, background motion, a
/// class a person added) is never rejected.
public struct Rejection: Sendable, Equatable {
    public let embedding: Embedding
    public let dimension: Int
    /// `labels.count × dimension`, row-major.
    public let prototypes: [Float]
    /// Each prototype's class, an index into the model's class names.
    public let labels: [Int]
    /// For each class, the cosine distance to its nearest prototype beyond which a window whose top
    /// class it is is unknown motion; classes past its end have none.
    public let limits: [Float]
    /// The share of the training windows of a gesture that the limit rejects.
    public let falseRejectRate: Double
    /// The test of the motion's statistics; nil in models from before it.
    public let motion: MotionRejection?

    public static let prototypesPerClass = 16
    /// The share of a gesture's training windows left beyond the limit, chosen by
    /// `gesture-bench open-set` over every fold.
    public static let defaultFalseRejectRate = 0.01

    init(
        embedding: Embedding, dimension: Int, prototypes: [Float], labels: [Int], limits: [Float],
        falseRejectRate: Double, motion: MotionRejection? = nil
    ) {
        precondition(prototypes.count == labels.count * dimension)
        self.embedding = embedding
        self.dimension = dimension
        self.prototypes = prototypes
        self.labels = labels
        self.limits = limits
        self.falseRejectRate = falseRejectRate
        self.motion = motion
    }

    /// Prototypes of each of `gestures`' windows, and the limits that reject `falseRejectRate` of
    /// them; `classes` in all. A class's limit is measured on windows its prototypes were not made
    /// from, where `halves` split it (each half's windows against the other's prototypes), since
    /// windows lie closer to prototypes made from themselves than a new person's do.
    init(
        embedding: Embedding, dimension: Int, windows: EmbeddedWindows, halves: [EmbeddedWindows], gestures: [Int],
        classes: Int, falseRejectRate: Double, motion: MotionRejection?
    ) {
        let (prototypes, labels) = windows.prototypes(of: gestures, dimension: dimension)
        let limits = (0..<classes).map { label -> Float in
            guard gestures.contains(label) else { return 2 }
            let split = halves.count == 2 && halves.allSatisfy { $0.labels.contains(label) }
            let pairs = split ? [(halves[0], halves[1]), (halves[1], halves[0])] : [(windows, windows)]
            let distances = pairs.flatMap { fitted, measured in
                let (prototypes, labels) = fitted.prototypes(of: [label], dimension: dimension)
                let fit = Rejection(
                    embedding: embedding, dimension: dimension, prototypes: prototypes, labels: labels, limits: [],
                    falseRejectRate: falseRejectRate)
                return measured.embeddings.withUnsafeBufferPointer { embeddings in
                    measured.labels.indices.filter { measured.labels[$0] == label }.map {
                        fit.distance(embeddings.baseAddress! + $0 * dimension, to: label)
                    }
                }
            }.sorted()
            guard !distances.isEmpty else { return 2 }
            return distances[Int((Double(distances.count - 1) * (1 - falseRejectRate)).rounded())]
        }
        self.init(
            embedding: embedding, dimension: dimension, prototypes: prototypes, labels: labels, limits: limits,
            falseRejectRate: falseRejectRate, motion: motion)
    }

    /// Whether a window whose top class is `label` and whose embedding is `activations` is unknown motion.
    func rejects(_ activations: UnsafePointer<Float>, as label: Int) -> Bool {
        label < limits.count && distance(activations, to: label) > limits[label]
    }

    /// The cosine distance from `activations` to the nearest prototype of `label`; 0 for a class without any.
    func distance(_ activations: UnsafePointer<Float>, to label: Int) -> Float {
        let norm = gl_dot_product(Int32(dimension), activations, activations)
        var nearest: Float = labels.contains(label) ? 2 : 0
        prototypes.withUnsafeBufferPointer { prototypes in
            for (row, prototypeLabel) in labels.enumerated() where prototypeLabel == label {
                let product = gl_dot_product(Int32(dimension), activations, prototypes.baseAddress! + row * dimension)
                let similarity = norm > 0 ? product / norm.squareRoot() : 0
                nearest = min(nearest, 1 - similarity)
            }
        }
        return nearest
    }
}

/// Windows' embeddings (`labels.count × dimension`, row-major) and classes.
struct EmbeddedWindows {
    var embeddings: [Float]
    var labels: [Int]
    /// Each window's take: a run of consecutive windows of one sequence with one label.
    var takes: [Int]
    /// Whether the network alone would detect each window as its label: its top class at 0.9.
    var detected: [Bool]
    /// Each window's motion statistics, not standardized (`GestureModel.motionStatistics`); empty
    /// when not asked for.
    var motion: [Float]
    /// Each window's sequence, an index into those embedded.
    var sequences: [Int]

    var motionDimension: Int { labels.isEmpty ? 0 : motion.count / labels.count }

    func motion(of window: Int) -> ArraySlice<Float> {
        motion[window * motionDimension..<(window + 1) * motionDimension]
    }

    /// The windows of the sequences `kept` (indices into those embedded, in order), as embedding
    /// those sequences alone gives them: a sequence's windows do not depend on the others'.
    func restricted(to kept: [Int]) -> EmbeddedWindows {
        let position = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        let windows = sequences.indices.filter { position[sequences[$0]] != nil }
        let dimension = labels.isEmpty ? 0 : embeddings.count / labels.count
        var take = -1
        return EmbeddedWindows(
            embeddings: windows.flatMap { embeddings[$0 * dimension..<($0 + 1) * dimension] },
            labels: windows.map { labels[$0] },
            takes: windows.indices.map { index in
                if index == 0 || takes[windows[index]] != takes[windows[index - 1]] { take += 1 }
                return take
            },
            detected: windows.map { detected[$0] },
            motion: windows.flatMap { motion(of: $0) },
            sequences: windows.map { position[sequences[$0]]! })
    }

    /// At most `Rejection.prototypesPerClass` prototypes of each of `classes`, and their classes.
    func prototypes(of classes: [Int], dimension: Int) -> (prototypes: [Float], labels: [Int]) {
        var prototypes: [Float] = [], prototypeLabels: [Int] = []
        for label in classes {
            let points = labels.indices.filter { labels[$0] == label }.flatMap {
                unitLength(embeddings[$0 * dimension..<($0 + 1) * dimension])
            }
            let reduced = kMeans(points, dimension: dimension, clusters: Rejection.prototypesPerClass)
            prototypes += reduced
            prototypeLabels += repeatElement(label, count: reduced.count / dimension)
        }
        return (prototypes, prototypeLabels)
    }
}

extension GestureModel {
    /// This model with a rejection calibrated on the windows of its gestures in `sequences`
    /// (rest and background motion are not gestures): the embedding's distance, and with `motion`
    /// the motion's statistics too. Without everyday motion taught as `other`, the distance is the
    /// one guard against motion never taught, and is measured on the recorded sequences only: the
    /// copies augmentation makes reach beyond the motion people made, and limits that take them in
    /// take in more of that motion too. With it, the network and the motion's statistics keep that
    /// motion out, and limits as wide as the copies keep more of the new people's takes.
    public func calibratingRejection(
        on sequences: [LabeledSequence], embedding: Embedding = .lstm,
        falseRejectRate: Double = Rejection.defaultFalseRejectRate,
        motion: MotionCalibration? = nil
    ) -> GestureModel {
        let decay = MotionRejection.decay(window: windowing.window, rate: samplingRate)
        let recorded =
            classNames.contains(ActivityLabel.other.rawValue)
            ? Array(sequences.indices) : sequences.indices.filter { sequences[$0].copyOf == nil }
        // One pass: every sequence's windows for the motion's statistics, else the recorded ones'.
        // The distance's windows and halves are among them.
        let embedded = embeddings(
            of: motion == nil ? recorded.map { sequences[$0] } : sequences, embedding, classCount: classNames.count,
            motionDecay: motion == nil ? nil : decay)
        let windows =
            motion == nil || recorded.count == sequences.count ? embedded : embedded.restricted(to: recorded)
        let gestures = classNames.indices.filter { ActivityLabel(rawValue: classNames[$0])?.isBackground != true }
        var model = self
        model.rejection = Rejection(
            embedding: embedding, dimension: embedding.width(architecture), windows: windows,
            halves: Self.halves(recorded.map { sequences[$0] }).map(windows.restricted), gestures: gestures,
            classes: classNames.count, falseRejectRate: falseRejectRate,
            motion: motion.flatMap { calibration in
                let groups = Self.groups(sequences)
                return MotionRejection(
                    windows: embedded, groups: embedded.sequences.map { groups[$0] }, gestures: gestures,
                    classes: classNames.count, decay: decay, calibration: calibration)
            })
        return model
    }

    /// The indices of `sequences` in two halves by person, alternately in the order of their names
    /// (by recording when all are one person's), so that neither half has any of the other's people or takes.
    static func halves(_ sequences: [LabeledSequence]) -> [[Int]] {
        let groups = Self.groups(sequences)
        return [0, 1].map { half in sequences.indices.filter { groups[$0] % 2 == half } }
    }

    /// Each sequence's person, numbered in the order of their names, or its recording's when all
    /// are one person's: the groups calibration leaves out in turn.
    static func groups(_ sequences: [LabeledSequence]) -> [Int] {
        let people = Set(sequences.map(\.user)).sorted()
        let key: (LabeledSequence) -> String =
            people.count > 1 ? { $0.user.rawValue } : { $0.recordedSession.rawValue }
        let keys = Set(sequences.map(key)).sorted()
        return sequences.map { keys.firstIndex(of: key($0))! }
    }

    /// Every real window's embedding, class, take and whether the network detects it, `classCount`
    /// classes labeling them; with `motionDecay`, its motion statistics too.
    func embeddings(
        of sequences: [LabeledSequence], _ embedding: Embedding, classCount: Int, motionDecay: Float? = nil
    ) -> EmbeddedWindows {
        let width = embedding.width(architecture), classes = architecture.classes
        let chunks = ChunkSet(sequences, windowing: windowing, classCount: classCount, normalization: normalization)
        let rows = chunks.inferenceRows(network, parameters: parameters, batchSize: 32, width: width + classes) {
            workspace, row, into in
            into.update(from: embedding.activations(workspace, row: row, width: width), count: width)
            (into + width).update(from: workspace.probabilities + row * classes, count: classes)
        }
        let real = chunks.labels.indices.filter { chunks.lossWeights[$0] > 0 }
        var takes: [Int] = [], take = 0
        for (index, window) in real.enumerated() where index > 0 {
            let previous = real[index - 1]
            if chunks.labels[window] != chunks.labels[previous]
                || chunks.sequenceOfChunk[window / chunks.windowsPerChunk]
                    != chunks.sequenceOfChunk[previous / chunks.windowsPerChunk]
            {
                take += 1
            }
            takes.append(take)
        }
        let stride = width + classes
        return EmbeddedWindows(
            embeddings: real.flatMap { rows[$0 * stride..<$0 * stride + width] },
            labels: real.map { chunks.labels[$0] },
            takes: real.isEmpty ? [] : [0] + takes,
            detected: real.map { window in
                let probabilities = rows[window * stride + width..<(window + 1) * stride]
                let top = argmax(probabilities)
                return top == chunks.labels[window] && probabilities[probabilities.startIndex + top] >= 0.9
            },
            motion: motionDecay.map { motionStatistics(of: sequences, decay: $0) } ?? [],
            sequences: real.map { chunks.sequenceOfChunk[$0 / chunks.windowsPerChunk] })
    }
}
