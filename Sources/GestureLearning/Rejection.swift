import GestureCore

/// The model's "none of these": a window whose embedding lies farther from every prototype of its
/// top class than the training windows of that class mostly do is unknown motion. Each gesture
/// class keeps at most `prototypesPerClass` prototypes of unit length (spherical k-means of its
/// training windows' embeddings); the limit is the cosine distance below which
/// `1 - falseRejectRate` of those windows lie. A class without prototypes (rest, background
/// motion, a class a person added) is never rejected.
public struct Rejection: Sendable, Equatable {
    public let embedding: Embedding
    public let dimension: Int
    /// `labels.count × dimension`, row-major.
    let prototypes: [Float]
    /// Each prototype's class, an index into the model's class names.
    let labels: [Int]
    /// The cosine distance to the nearest prototype of the top class beyond which a window is unknown.
    public let limit: Float
    /// The share of the training windows of a gesture that the limit rejects.
    public let falseRejectRate: Double

    public static let prototypesPerClass = 16
    /// The share of a gesture's training windows left beyond the limit, chosen by
    /// `gesture-bench open-set` over every fold.
    public static let defaultFalseRejectRate = 0.05

    init(
        embedding: Embedding, dimension: Int, prototypes: [Float], labels: [Int], limit: Float,
        falseRejectRate: Double
    ) {
        precondition(prototypes.count == labels.count * dimension)
        self.embedding = embedding
        self.dimension = dimension
        self.prototypes = prototypes
        self.labels = labels
        self.limit = limit
        self.falseRejectRate = falseRejectRate
    }

    /// Prototypes of `classes`' windows in `embeddings` (`labels.count × dimension`), and the limit
    /// that rejects `falseRejectRate` of them.
    init(
        embedding: Embedding, dimension: Int, embeddings: [Float], labels: [Int], classes: [Int],
        falseRejectRate: Double
    ) {
        var prototypes: [Float] = [], prototypeLabels: [Int] = []
        var windows: [(row: Int, label: Int)] = []
        for label in classes {
            let rows = labels.indices.filter { labels[$0] == label }
            guard !rows.isEmpty else { continue }
            let points = rows.flatMap { unitLength(embeddings[$0 * dimension..<($0 + 1) * dimension]) }
            let reduced = kMeans(points, dimension: dimension, clusters: Self.prototypesPerClass)
            prototypes += reduced
            prototypeLabels += repeatElement(label, count: reduced.count / dimension)
            windows += rows.map { ($0, label) }
        }
        var rejection = Rejection(
            embedding: embedding, dimension: dimension, prototypes: prototypes, labels: prototypeLabels, limit: 2,
            falseRejectRate: falseRejectRate)
        let distances = embeddings.withUnsafeBufferPointer { embeddings in
            windows.map { rejection.distance(embeddings.baseAddress! + $0.row * dimension, to: $0.label) }
        }.sorted()
        if !distances.isEmpty {
            let index = Int((Double(distances.count - 1) * (1 - falseRejectRate)).rounded())
            rejection = Rejection(
                embedding: embedding, dimension: dimension, prototypes: prototypes, labels: prototypeLabels,
                limit: distances[index], falseRejectRate: falseRejectRate)
        }
        self = rejection
    }

    /// Whether a window whose top class is `label` and whose embedding is `activations` is unknown motion.
    func rejects(_ activations: UnsafePointer<Float>, as label: Int) -> Bool {
        distance(activations, to: label) > limit
    }

    /// The cosine distance from `activations` to the nearest prototype of `label`; 0 for a class without any.
    func distance(_ activations: UnsafePointer<Float>, to label: Int) -> Float {
        var norm: Float = 0
        for index in 0..<dimension { norm += activations[index] * activations[index] }
        var nearest: Float = labels.contains(label) ? 2 : 0
        prototypes.withUnsafeBufferPointer { prototypes in
            for (row, prototypeLabel) in labels.enumerated() where prototypeLabel == label {
                var product: Float = 0
                for index in 0..<dimension { product += activations[index] * prototypes[row * dimension + index] }
                let similarity = norm > 0 ? product / norm.squareRoot() : 0
                nearest = min(nearest, 1 - similarity)
            }
        }
        return nearest
    }
}

extension GestureModel {
    /// This model with a rejection calibrated on the windows of its gestures in `sequences`
    /// (rest and background motion are not gestures).
    public func calibratingRejection(
        on sequences: [LabeledSequence], embedding: Embedding = .lstm,
        falseRejectRate: Double = Rejection.defaultFalseRejectRate
    ) -> GestureModel {
        let windows = embeddings(of: sequences, embedding, classCount: classNames.count)
        var model = self
        model.rejection = Rejection(
            embedding: embedding, dimension: embedding.width(architecture), embeddings: windows.embeddings,
            labels: windows.labels,
            classes: classNames.indices.filter { ActivityLabel(rawValue: classNames[$0])?.isBackground != true },
            falseRejectRate: falseRejectRate)
        return model
    }

    /// Every real window's embedding (`count × width`) and class, `classCount` classes labeling them.
    func embeddings(
        of sequences: [LabeledSequence], _ embedding: Embedding, classCount: Int
    ) -> (embeddings: [Float], labels: [Int]) {
        let width = embedding.width(architecture)
        let chunks = ChunkSet(sequences, windowing: windowing, classCount: classCount, normalization: normalization)
        let rows = chunks.inferenceRows(network, parameters: parameters, batchSize: 32, width: width) {
            workspace, row, into in
            into.update(from: embedding.activations(workspace, row: row, width: width), count: width)
        }
        let real = chunks.labels.indices.filter { chunks.lossWeights[$0] > 0 }
        return (real.flatMap { rows[$0 * width..<($0 + 1) * width] }, real.map { chunks.labels[$0] })
    }
}
