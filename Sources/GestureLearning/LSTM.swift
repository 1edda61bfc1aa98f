import CLearningKernels

/// How a batch of sequences of different lengths is laid out, as packed sequences: time-major,
/// the sequences sorted longest first, and at step t only the `active[t]` sequences that are still
/// running. Step t's rows are one contiguous block from `offsets[t]`, and sequence b is row b of
/// every block it appears in, so the sequences running at step t are a prefix of those at t − 1.
struct BatchShape: Equatable {
    /// Sequences per step, non-increasing.
    let active: [Int]
    let offsets: [Int]
    let rows: Int

    /// `lengths` sorted longest first, each at least 1.
    init(lengths: [Int]) {
        precondition(!lengths.isEmpty && zip(lengths, lengths.dropFirst()).allSatisfy { $0 >= $1 } && lengths.last! > 0)
        active = (0..<lengths[0]).map { step in lengths.prefix { $0 > step }.count }
        offsets = active.reduce(into: [0]) { $0.append($0.last! + $1) }.dropLast()
        rows = lengths.reduce(0, +)
    }

    var steps: Int { active.count }
}

/// A long short-term memory layer over the steps of a `BatchShape`.
///
/// Gates in the order input, forget, cell candidate, output; weights `inputs × 4·units` and
/// `units × 4·units`, one bias of 4·units.
struct LSTM {
    let inputs: Int
    let units: Int

    var gateWidth: Int { 4 * units }

    /// What the backward pass needs of the forward pass, each `rows × width`.
    struct Saved {
        /// The gates after their activations (4·units).
        let gates: UnsafeMutablePointer<Float>
        /// The cell state (units) and its tanh (units).
        let cells: UnsafeMutablePointer<Float>
        let cellTanh: UnsafeMutablePointer<Float>
    }

    /// Each sequence's hidden and cell states (`units` each), one sequence after another.
    struct State {
        let hidden: UnsafePointer<Float>
        let cells: UnsafePointer<Float>
    }

    struct Weights {
        let input: UnsafePointer<Float>
        let recurrent: UnsafePointer<Float>
        let bias: UnsafePointer<Float>
    }

    /// Room to pack any right-hand factor of the products over `rows` rows (see `gemm`).
    func packingCount(rows: Int) -> Int {
        [(units, gateWidth), (gateWidth, units), (inputs, gateWidth), (gateWidth, inputs), (rows, gateWidth)]
            .map { PackedFactor.packedCount(k: $0.0, n: $0.1) }.max()!
    }

    /// The pass from the zero state. `packing` holds `packingCount(rows:)`
    /// floats, or is nil to leave every product to OpenBLAS.
    func forward(
        _ x: UnsafePointer<Float>, shape: BatchShape, weights: Weights,
        saving saved: Saved, into hidden: UnsafeMutablePointer<Float>, packing: UnsafeMutablePointer<Float>?,
        from initial: State? = nil, team: ThreadTeam? = nil
    ) {
        broadcastRows(weights.bias, to: saved.gates, rowCount: shape.rows, columns: gateWidth, team: team)
        gemm(shape.rows, gateWidth, inputs, x, weights.input, saved.gates, beta: 1, packing: packing, team: team)
        let recurrent = PackedFactor(
            weights.recurrent, k: units, n: gateWidth,
            packingInto: shape.steps > 2 ? packing : nil, team: team)
        for step in 0..<shape.steps {
            let first = shape.offsets[step], previous = step > 0 ? shape.offsets[step - 1] : nil
            splitSequences(shape.active[step], team: team) { sequences in
                let row = first + sequences.lowerBound, previousRow = previous.map { $0 + sequences.lowerBound }
                let before: State? =
                    previousRow.map { State(hidden: hidden + $0 * units, cells: saved.cells + $0 * units) }
                    ?? initial.map {
                        State(
                            hidden: $0.hidden + sequences.lowerBound * units,
                            cells: $0.cells + sequences.lowerBound * units)
                    }
                if let before {
                    recurrent.multiply(before.hidden, rows: sequences.count, into: saved.gates + row * gateWidth)
                }
                gl_lstm_step_forward(
                    Int32(sequences.count), Int32(units), saved.gates + row * gateWidth, before?.cells,
                    saved.cells + row * units, saved.cellTanh + row * units, hidden + row * units)
            }
        }
    }

    /// A step's sequences, `0..<count`, shared among `team`'s threads: each sequence's step, its
    /// product with the recurrent weights and its activations, is its own.
    private func splitSequences(_ count: Int, team: ThreadTeam?, _ part: (Range<Int>) -> Void) {
        // The activations cost about as much as 64 more multiply-adds a value.
        ThreadTeam.split(team, work: count * gateWidth * (units + 64), count, part)
    }

    struct Gradients {
        let input: UnsafeMutablePointer<Float>
        let recurrent: UnsafeMutablePointer<Float>
        let bias: UnsafeMutablePointer<Float>
    }

    /// Buffers the backward pass works in: gate gradients (`rows × 4·units`), the cell gradient
    /// carried back (`batch × units`), the hidden states each step received (`rows × units`).
    struct Scratch {
        let gateGradient: UnsafeMutablePointer<Float>
        let cellGradient: UnsafeMutablePointer<Float>
        let previousHidden: UnsafeMutablePointer<Float>
    }

    /// Backpropagation through all steps, for a forward pass that started from the zero state.
    /// `hiddenGradient` (`rows × units`) comes in as dL/dh from above and is overwritten.
    func backward(
        _ x: UnsafePointer<Float>, shape: BatchShape, weights: Weights, saved: Saved,
        hidden: UnsafePointer<Float>, hiddenGradient: UnsafeMutablePointer<Float>, scratch: Scratch,
        gradients: Gradients, inputGradient: UnsafeMutablePointer<Float>?, packing: UnsafeMutablePointer<Float>?,
        team: ThreadTeam? = nil
    ) {
        let gateGradient = scratch.gateGradient
        let recurrentTransposed = PackedFactor(
            weights.recurrent, k: gateWidth, n: units, transposed: true,
            packingInto: shape.steps > 2 ? packing : nil, team: team)
        scratch.cellGradient.update(repeating: 0, count: shape.active[0] * units)
        for step in stride(from: shape.steps - 1, through: 0, by: -1) {
            let first = shape.offsets[step], previous = step > 0 ? shape.offsets[step - 1] : nil
            splitSequences(shape.active[step], team: team) { sequences in
                let row = first + sequences.lowerBound, previousRow = previous.map { $0 + sequences.lowerBound }
                gl_lstm_step_backward(
                    Int32(sequences.count), Int32(units), saved.gates + row * gateWidth,
                    previousRow.map { saved.cells + $0 * units }, saved.cellTanh + row * units,
                    hiddenGradient + row * units, scratch.cellGradient + sequences.lowerBound * units,
                    gateGradient + row * gateWidth)
                if let previousRow {
                    recurrentTransposed.multiply(
                        gateGradient + row * gateWidth, rows: sequences.count,
                        into: hiddenGradient + previousRow * units)
                }
            }
        }
        recurrentWeightGradient(
            shape: shape, hidden: hidden, scratch: scratch, into: gradients.recurrent,
            packing: packing, team: team)
        gemm(
            inputs, gateWidth, shape.rows, x, transposeA: true, gateGradient, gradients.input, packing: packing,
            team: team)
        columnSums(gateGradient, rows: shape.rows, columns: gateWidth, into: gradients.bias, team: team)
        if let inputGradient {
            gemm(
                shape.rows, inputs, gateWidth, gateGradient, weights.input, transposeB: true, inputGradient,
                packing: packing, team: team)
        }
    }

    /// Σₜ h(t−1)ᵀ · dgates(t) over steps 1…, as one product: the hidden states each step received
    /// are gathered first, lined up with the steps' gate gradients.
    private func recurrentWeightGradient(
        shape: BatchShape, hidden: UnsafePointer<Float>, scratch: Scratch,
        into gradient: UnsafeMutablePointer<Float>, packing: UnsafeMutablePointer<Float>?, team: ThreadTeam?
    ) {
        let firstBlock = shape.active[0]
        guard shape.steps > 1 else {
            gradient.update(repeating: 0, count: units * gateWidth)
            return
        }
        for step in 1..<shape.steps {
            (scratch.previousHidden + (shape.offsets[step] - firstBlock) * units)
                .update(from: hidden + shape.offsets[step - 1] * units, count: shape.active[step] * units)
        }
        gemm(
            units, gateWidth, shape.rows - firstBlock, scratch.previousHidden, transposeA: true,
            scratch.gateGradient + firstBlock * gateWidth, gradient, packing: packing, team: team)
    }
}
