import FoundationEssentials
import Glibc

extension ChunkSet {
    /// Copies the real windows of the chunks at `indices` into the workspace, packed as
    /// `BatchShape` describes, and returns that shape and the chunk in each of its columns.
    ///
    /// Padded windows carry weight 0 and come after a chunk's real ones, so they could change
    /// nothing but batch norm's statistics; leaving them out saves their work and keeps them out
    /// of those statistics too.
    func gather(_ indices: some Collection<Int>, into workspace: Workspace) -> (shape: BatchShape, chunks: [Int]) {
        let chunks = indices.sorted { (lengths[$0], $1) > (lengths[$1], $0) }
        let shape = BatchShape(lengths: chunks.map { lengths[$0] })
        inputs.withUnsafeBufferPointer { inputs in
            for step in 0..<shape.steps {
                for column in 0..<shape.active[step] {
                    let row = shape.offsets[step] + column, window = chunks[column] * windowsPerChunk + step
                    (workspace.input + row * windowSize).update(
                        from: inputs.baseAddress! + window * windowSize,
                        count: windowSize)
                    workspace.labels[row] = labels[window]
                    workspace.lossWeights[row] = lossWeights[window]
                }
            }
        }
        return (shape, chunks)
    }

    /// Every chunk's window probabilities, `chunkCount × windowsPerChunk × classes` (zeros for
    /// padding), from the inference pass in batches of up to `batchSize` chunks.
    func probabilities(_ network: Network, parameters: [Float], batchSize: Int, team: ThreadTeam? = nil) -> [Float] {
        let classes = network.architecture.classes
        return inferenceRows(network, parameters: parameters, batchSize: batchSize, width: classes, team: team) {
            workspace, row, into in
            into.update(from: workspace.probabilities + row * classes, count: classes)
        }
    }

    /// One row of `width` values per window, `chunkCount × windowsPerChunk × width` (zeros for
    /// padding): `read` copies a window's row out of the workspace after the inference pass
    /// through `stage`.
    func inferenceRows(
        _ network: Network, parameters: [Float], batchSize: Int, width: Int,
        through stage: InferenceStage = .probabilities, team: ThreadTeam? = nil,
        read: (Workspace, _ row: Int, _ into: UnsafeMutablePointer<Float>) -> Void
    ) -> [Float] {
        let workspace = Workspace(network, capacity: batchSize * windowsPerChunk, team: team)
        var result = [Float](repeating: 0, count: chunkCount * windowsPerChunk * width)
        parameters.withUnsafeBufferPointer { parameters in
            result.withUnsafeMutableBufferPointer { result in
                for first in stride(from: 0, to: chunkCount, by: batchSize) {
                    let (shape, chunks) = gather(first..<min(first + batchSize, chunkCount), into: workspace)
                    network.forwardInference(
                        parameters.baseAddress!, shape: shape, workspace: workspace, through: stage)
                    for step in 0..<shape.steps {
                        for column in 0..<shape.active[step] {
                            let window = chunks[column] * windowsPerChunk + step
                            read(workspace, shape.offsets[step] + column, result.baseAddress! + window * width)
                        }
                    }
                }
            }
        }
        return result
    }

    /// The mean cross-entropy and the accuracy over the real (weighted) windows.
    func lossAndAccuracy(probabilities: [Float], classes: Int) -> (loss: Float, accuracy: Double) {
        var loss: Double = 0, correct = 0, count = 0
        for window in labels.indices where lossWeights[window] > 0 {
            let row = probabilities[window * classes..<(window + 1) * classes]
            loss -= Double(log(max(row[row.startIndex + labels[window]], .leastNormalMagnitude)))
            if argmax(row) == labels[window] { correct += 1 }
            count += 1
        }
        return (Float(loss / Double(max(count, 1))), Double(correct) / Double(max(count, 1)))
    }
}

/// The index of the largest value, the first of equals.
func argmax(_ values: some Collection<Float>) -> Int {
    var best = values.startIndex
    for index in values.indices where values[index] > values[best] { best = index }
    return values.distance(from: values.startIndex, to: best)
}
