import Glibc

/// The layer whose activations a k-nearest-neighbour model compares windows by.
public enum Embedding: String, Sendable, Codable, CaseIterable {
    /// The dense layer's output after batch norm and ReLU: what the output layer reads.
    case dense
    /// The LSTM's hidden state.
    case lstm

    func width(_ architecture: Architecture) -> Int {
        switch self {
        case .dense: architecture.denseUnits
        case .lstm: architecture.lstmUnits
        }
    }

    /// Where a row's activations sit in the workspace after an inference pass.
    func activations(_ workspace: Workspace, row: Int, width: Int) -> UnsafePointer<Float> {
        switch self {
        case .dense: UnsafePointer(workspace.dense + row * width)
        case .lstm: UnsafePointer(workspace.hidden + row * width)
        }
    }
}

/// A personalised model's classifier: a person's windows as embeddings of unit length (at most
/// `prototypesPerClass` a class, more reduced by k-means), and a vote of the `k` nearest by cosine
/// distance, each weighted by the inverse of its distance and of its class's share of the
/// prototypes (so a class with more takes does not win its neighbours' windows), for class
/// probabilities.
///
/// A class without prototypes keeps the network's probability; the vote shares what is left
/// among the others, so the classes the person did not record are still found as before.
public struct NearestNeighbours: Sendable, Equatable {
    public let embedding: Embedding
    public let k: Int
    public let dimension: Int
    /// `labels.count × dimension`, row-major.
    let prototypes: [Float]
    /// Each prototype's class, an index into the model's class names.
    public let labels: [Int]
    /// Whether each class has prototypes.
    let covered: [Bool]
    /// Each class's weight in the vote: the mean of the classes' prototype counts over its own.
    let classWeights: [Float]

    /// Keeps a close neighbour from weighing without bound.
    static let distanceFloor: Float = 0.05

    init(embedding: Embedding, k: Int, dimension: Int, prototypes: [Float], labels: [Int], classes: Int) {
        precondition(k > 0 && prototypes.count == labels.count * dimension && labels.allSatisfy((0..<classes).contains))
        self.embedding = embedding
        self.k = k
        self.dimension = dimension
        self.prototypes = prototypes
        self.labels = labels
        var counts = [Float](repeating: 0, count: classes)
        for label in labels { counts[label] += 1 }
        covered = counts.map { $0 > 0 }
        let mean = Float(labels.count) / Float(max(covered.filter { $0 }.count, 1))
        classWeights = counts.map { $0 > 0 ? mean / $0 : 0 }
    }

    /// From windows' embeddings and classes: each class's reduced to at most `prototypesPerClass`.
    init(
        embedding: Embedding, k: Int, prototypesPerClass: Int, dimension: Int, embeddings: [Float], labels: [Int],
        classes: Int
    ) {
        var prototypes: [Float] = [], prototypeLabels: [Int] = []
        for label in 0..<classes {
            let rows = labels.indices.filter { labels[$0] == label }
            guard !rows.isEmpty else { continue }
            var points = [Float]()
            points.reserveCapacity(rows.count * dimension)
            for row in rows { points += unitLength(embeddings[row * dimension..<(row + 1) * dimension]) }
            let reduced = kMeans(points, dimension: dimension, clusters: prototypesPerClass)
            prototypes += reduced
            prototypeLabels += repeatElement(label, count: reduced.count / dimension)
        }
        self.init(
            embedding: embedding, k: k, dimension: dimension, prototypes: prototypes, labels: prototypeLabels,
            classes: classes)
    }

    var classes: Int { covered.count }

    /// The class probabilities of one window: `network` holds the network's own (for its classes,
    /// the first ones), `activations` the window's embedding.
    func probabilities(
        network: UnsafePointer<Float>, networkClasses: Int, activations: UnsafePointer<Float>
    )
        -> [Float]
    {
        var result = [Float](repeating: 0, count: classes)
        var kept: Float = 0
        for label in 0..<networkClasses where !covered[label] {
            result[label] = network[label]
            kept += network[label]
        }
        let votes = vote(activations)
        for label in 0..<classes where covered[label] { result[label] = (1 - kept) * votes[label] }
        return result
    }

    /// The k nearest prototypes' share of the vote for each class.
    func vote(_ activations: UnsafePointer<Float>) -> [Float] {
        let query = unitLength(UnsafeBufferPointer(start: activations, count: dimension))
        var similarities = [Float](repeating: 0, count: labels.count)
        query.withUnsafeBufferPointer { query in
            prototypes.withUnsafeBufferPointer { prototypes in
                similarities.withUnsafeMutableBufferPointer { similarities in
                    gemm(
                        1, labels.count, dimension, query.baseAddress!, prototypes.baseAddress!, transposeB: true,
                        similarities.baseAddress!)
                }
            }
        }
        var nearest: [(distance: Float, label: Int)] = []
        for (index, similarity) in similarities.enumerated() {
            let distance = max(1 - similarity, 0)
            guard nearest.count < k || distance < nearest[k - 1].distance else { continue }
            let position = nearest.firstIndex { distance < $0.distance } ?? nearest.count
            nearest.insert((distance, labels[index]), at: position)
            if nearest.count > k { nearest.removeLast() }
        }
        var votes = [Float](repeating: 0, count: classes)
        for neighbour in nearest {
            votes[neighbour.label] += classWeights[neighbour.label] / (neighbour.distance + Self.distanceFloor)
        }
        let total = votes.reduce(0, +)
        return votes.map { $0 / total }
    }
}

/// `values` scaled to length 1; all zeros stay zeros.
func unitLength(_ values: some Collection<Float>) -> [Float] {
    let length = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
    return length > 0 ? values.map { $0 / length } : Array(values)
}

/// At most `clusters` centres of `points` (rows of `dimension`): the points themselves when there
/// are few enough, otherwise k-means from points spread evenly through them, so the same points
/// always give the same centres. `spherical`: the points are of unit length, and so are the
/// centres, nearest by cosine; otherwise nearest by Euclidean distance, each centre its points' mean.
func kMeans(
    _ points: [Float], dimension: Int, clusters: Int, iterations: Int = 10, spherical: Bool = true
) -> [Float] {
    let count = points.count / dimension
    guard count > clusters else { return points }
    var centres = (0..<clusters).flatMap { cluster in
        let index = cluster * count / clusters
        return points[index * dimension..<(index + 1) * dimension]
    }
    for _ in 0..<iterations {
        let nearest = nearestCentres(of: points, count: count, centres: centres, spherical: spherical)
        var sums = [Float](repeating: 0, count: clusters * dimension)
        var members = [Int](repeating: 0, count: clusters)
        points.withUnsafeBufferPointer { points in
            for (index, cluster) in nearest.enumerated() {
                for offset in 0..<dimension { sums[cluster * dimension + offset] += points[index * dimension + offset] }
                members[cluster] += 1
            }
        }
        centres = (0..<clusters).flatMap { cluster -> [Float] in
            let sum = sums[cluster * dimension..<(cluster + 1) * dimension]
            guard members[cluster] > 0 else { return Array(centres[cluster * dimension..<(cluster + 1) * dimension]) }
            return spherical ? unitLength(sum) : sum.map { $0 / Float(members[cluster]) }
        }
    }
    return centres
}

/// Each point's nearest centre, the products of all points and centres taken in one matrix product:
/// by cosine (`spherical`, unit vectors) the largest product; by Euclidean distance the largest
/// product less half the centre's squared length.
private func nearestCentres(of points: [Float], count: Int, centres: [Float], spherical: Bool) -> [Int] {
    let dimension = points.count / count
    let clusters = centres.count / dimension
    let offsets = (0..<clusters).map { cluster in
        spherical ? 0 : -0.5 * centres[cluster * dimension..<(cluster + 1) * dimension].reduce(0) { $0 + $1 * $1 }
    }
    var products = [Float](repeating: 0, count: count * clusters)
    points.withUnsafeBufferPointer { points in
        centres.withUnsafeBufferPointer { centres in
            products.withUnsafeMutableBufferPointer { products in
                gemm(
                    count, clusters, dimension, points.baseAddress!, centres.baseAddress!, transposeB: true,
                    products.baseAddress!)
            }
        }
    }
    return (0..<count).map { index in
        (0..<clusters).max {
            products[index * clusters + $0] + offsets[$0] < products[index * clusters + $1] + offsets[$1]
        }!
    }
}

extension ChunkSet {
    /// As `probabilities(_:parameters:batchSize:team:)`, for a model whose classifier is
    /// `neighbours`.
    func probabilities(_ network: Network, parameters: [Float], neighbours: NearestNeighbours) -> [Float] {
        let networkClasses = network.architecture.classes, width = neighbours.dimension
        let rows = inferenceRows(network, parameters: parameters, batchSize: 32, width: networkClasses + width) {
            workspace, row, into in
            into.update(from: workspace.probabilities + row * networkClasses, count: networkClasses)
            (into + networkClasses).update(
                from: neighbours.embedding.activations(workspace, row: row, width: width), count: width)
        }
        let stride = networkClasses + width
        return rows.withUnsafeBufferPointer { rows in
            (0..<rows.count / stride).flatMap { window in
                let row = rows.baseAddress! + window * stride
                return neighbours.probabilities(
                    network: row, networkClasses: networkClasses, activations: row + networkClasses)
            }
        }
    }
}
