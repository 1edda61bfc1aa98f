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
    /// padding), from the inference pass in batches of up to `batchSize` chunks, each chunk's LSTM
    /// starting where its sequence's chunk before it ended.
    func probabilities(
        _ network: Network, parameters: [Float], batchSize: Int, team: ThreadTeam? = nil
    ) -> [Float] {
        let classes = network.architecture.classes
        return inferenceRows(network, parameters: parameters, batchSize: batchSize, width: classes, team: team) {
            workspace, row, into in
            into.update(from: workspace.probabilities + row * classes, count: classes)
        }
    }

    /// One row of `width` values per window, `chunkCount × windowsPerChunk × width` (zeros for
    /// padding): `read` copies a window's row out of the workspace after the inference pass
    /// through `stage`. Each chunk's LSTM starts where its sequence's chunk before it ended, as a
    /// live stream runs on (training starts every chunk from zeros).
    func inferenceRows(
        _ network: Network, parameters: [Float], batchSize: Int, width: Int,
        through stage: InferenceStage = .probabilities, team: ThreadTeam? = nil,
        read: (Workspace, _ row: Int, _ into: UnsafeMutablePointer<Float>) -> Void
    ) -> [Float] {
        let workspace = Workspace(network, capacity: batchSize * windowsPerChunk, team: team)
        var result = [Float](repeating: 0, count: chunkCount * windowsPerChunk * width)
        var carried = CarriedStates(units: network.lstm.units, sequenceOfChunk: sequenceOfChunk)
        parameters.withUnsafeBufferPointer { parameters in
            result.withUnsafeMutableBufferPointer { result in
                for batch in batchesInTurn(of: batchSize) {
                    let (shape, chunks) = gather(batch, into: workspace)
                    let forward = { (initial: LSTM.State?) in
                        network.forwardInference(
                            parameters.baseAddress!, shape: shape, workspace: workspace, through: stage,
                            from: initial)
                    }
                    if follows(chunks[0]) {
                        carried.startingStates(of: chunks, forward)
                    } else {
                        forward(nil)
                    }
                    for step in 0..<shape.steps {
                        for column in 0..<shape.active[step] {
                            let window = chunks[column] * windowsPerChunk + step
                            read(workspace, shape.offsets[step] + column, result.baseAddress! + window * width)
                        }
                    }
                    carried.keepEndingStates(of: chunks, lengths: lengths, shape: shape, workspace: workspace)
                }
            }
        }
        return result
    }

    /// Whether `chunk` carries on its sequence from the chunk before it.
    private func follows(_ chunk: Int) -> Bool {
        chunk > 0 && sequenceOfChunk[chunk - 1] == sequenceOfChunk[chunk]
    }

    /// The chunks in batches of up to `size`, every sequence's first chunk before any second one,
    /// and so on, so that each chunk comes after the one before it.
    private func batchesInTurn(of size: Int) -> [[Int]] {
        var turns: [[Int]] = []
        var position = 0
        for chunk in 0..<chunkCount {
            position = follows(chunk) ? position + 1 : 0
            if position == turns.count { turns.append([]) }
            turns[position].append(chunk)
        }
        return turns.flatMap { turn in
            stride(from: 0, to: turn.count, by: size).map { Array(turn[$0..<min($0 + size, turn.count)]) }
        }
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

/// The LSTM's state where each sequence's latest chunk ended, for the chunk after it.
private struct CarriedStates {
    let units: Int
    private let sequenceOfChunk: [Int]
    private var hidden: [Float]
    private var cells: [Float]
    /// The chunk whose ending state each sequence holds, if any.
    private var lastEnded: [Int?]

    init(units: Int, sequenceOfChunk: [Int]) {
        let sequences = (sequenceOfChunk.max() ?? -1) + 1
        self.units = units
        self.sequenceOfChunk = sequenceOfChunk
        hidden = [Float](repeating: 0, count: sequences * units)
        cells = hidden
        lastEnded = [Int?](repeating: nil, count: sequences)
    }

    /// Calls `body` with the states `chunks` (a batch's, in its columns' order, none the first of
    /// its sequence) start from: where each chunk before them ended.
    func startingStates(of chunks: [Int], _ body: (LSTM.State) -> Void) {
        var startHidden = [Float](repeating: 0, count: chunks.count * units), startCells = startHidden
        for (column, chunk) in chunks.enumerated() {
            let sequence = sequenceOfChunk[chunk]
            precondition(lastEnded[sequence] == chunk - 1, "chunk \(chunk) comes before the chunk it follows")
            let from = sequence * units, to = column * units
            startHidden[to..<to + units] = hidden[from..<from + units]
            startCells[to..<to + units] = cells[from..<from + units]
        }
        startHidden.withUnsafeBufferPointer { hidden in
            startCells.withUnsafeBufferPointer { cells in
                body(LSTM.State(hidden: hidden.baseAddress!, cells: cells.baseAddress!))
            }
        }
    }

    /// Keeps the states `chunks` ended with, after their inference pass.
    mutating func keepEndingStates(of chunks: [Int], lengths: [Int], shape: BatchShape, workspace: Workspace) {
        for (column, chunk) in chunks.enumerated() {
            let sequence = sequenceOfChunk[chunk]
            let row = shape.offsets[lengths[chunk] - 1] + column, to = sequence * units
            hidden.withUnsafeMutableBufferPointer {
                ($0.baseAddress! + to).update(from: workspace.hidden + row * units, count: units)
            }
            cells.withUnsafeMutableBufferPointer {
                ($0.baseAddress! + to).update(from: workspace.lstm.cells + row * units, count: units)
            }
            lastEnded[sequence] = chunk
        }
    }
}
