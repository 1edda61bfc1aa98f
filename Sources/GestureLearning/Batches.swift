import Foundation

extension ChunkSet {
    /// Copies the chunks at `indices` into the workspace as one time-major batch: row `t · batch + b`
    /// is window t of the b-th chunk.
    func gather(_ indices: some Collection<Int>, into workspace: Workspace) {
        let batch = indices.count
        inputs.withUnsafeBufferPointer { inputs in
            for (column, chunk) in indices.enumerated() {
                for step in 0..<windowsPerChunk {
                    let row = step * batch + column, window = chunk * windowsPerChunk + step
                    (workspace.input + row * windowSize).update(from: inputs.baseAddress! + window * windowSize,
                                                                count: windowSize)
                    workspace.labels[row] = labels[window]
                    workspace.weights[row] = weights[window]
                }
            }
        }
    }

    /// Every chunk's window probabilities, `chunkCount × windowsPerChunk × classes`, from the
    /// inference pass in batches of up to `batchSize` chunks.
    func probabilities(_ network: Network, parameters: [Float], batchSize: Int) -> [Float] {
        let classes = network.architecture.classes
        let workspace = Workspace(network, capacity: batchSize * windowsPerChunk)
        var result = [Float](repeating: 0, count: chunkCount * windowsPerChunk * classes)
        parameters.withUnsafeBufferPointer { parameters in
            for first in stride(from: 0, to: chunkCount, by: batchSize) {
                let indices = first..<min(first + batchSize, chunkCount)
                gather(indices, into: workspace)
                network.forwardInference(parameters.baseAddress!, steps: windowsPerChunk, batch: indices.count,
                                         workspace: workspace)
                for (column, chunk) in indices.enumerated() {
                    for step in 0..<windowsPerChunk {
                        let row = step * indices.count + column
                        let window = chunk * windowsPerChunk + step
                        for index in 0..<classes {
                            result[window * classes + index] = workspace.probabilities[row * classes + index]
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
        for window in labels.indices where weights[window] > 0 {
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
