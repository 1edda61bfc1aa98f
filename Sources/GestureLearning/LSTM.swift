/// A long short-term memory layer over `steps` time steps of `batch` sequences each. Rows are
/// time-major, row `t · batch + b` is sequence b at step t, so each step is one contiguous block.
///
/// Gates in the order input, forget, cell candidate, output; weights `inputs × 4·units` and
/// `units × 4·units`, one bias of 4·units.
struct LSTM {
    let inputs: Int
    let units: Int

    var gateWidth: Int { 4 * units }
    var parameterCount: Int { (inputs + units + 1) * gateWidth }

    /// What the backward pass needs of the forward pass, each `rows × width`.
    struct Saved {
        /// The gates after their activations (4·units).
        let gates: UnsafeMutablePointer<Float>
        /// The cell state (units) and its tanh (units).
        let cells: UnsafeMutablePointer<Float>
        let cellTanh: UnsafeMutablePointer<Float>
    }

    struct Weights {
        let input: UnsafePointer<Float>
        let recurrent: UnsafePointer<Float>
        let bias: UnsafePointer<Float>
    }

    /// The state before step 0, `batch × units` each; nil is zero.
    struct InitialState {
        let hidden: UnsafePointer<Float>
        let cell: UnsafePointer<Float>
    }

    func forward(_ x: UnsafePointer<Float>, steps: Int, batch: Int, weights: Weights, from initial: InitialState?,
                 saving saved: Saved, into hidden: UnsafeMutablePointer<Float>) {
        broadcastRows(weights.bias, to: saved.gates, rowCount: steps * batch, columns: gateWidth)
        gemm(steps * batch, gateWidth, inputs, x, weights.input, saved.gates, beta: 1)
        for step in 0..<steps {
            let first = step * batch
            let gates = saved.gates + first * gateWidth
            let previousHidden = step > 0 ? UnsafePointer(hidden + (first - batch) * units) : initial?.hidden
            if let previousHidden {
                gemm(batch, gateWidth, units, previousHidden, weights.recurrent, gates, beta: 1)
            }
            let previousCells = step > 0 ? UnsafePointer(saved.cells + (first - batch) * units) : initial?.cell
            for row in 0..<batch {
                let offset = (first + row) * units
                updateCell(gates: gates + row * gateWidth, previousCell: previousCells.map { $0 + row * units },
                           cell: saved.cells + offset, cellTanh: saved.cellTanh + offset, hidden: hidden + offset)
            }
        }
    }

    private func updateCell(gates: UnsafeMutablePointer<Float>, previousCell: UnsafePointer<Float>?,
                            cell: UnsafeMutablePointer<Float>, cellTanh: UnsafeMutablePointer<Float>,
                            hidden: UnsafeMutablePointer<Float>) {
        applySigmoid(gates, count: 2 * units)
        applyTanh(gates + 2 * units, count: units)
        applySigmoid(gates + 3 * units, count: units)
        let input = gates, forget = gates + units, candidate = gates + 2 * units, output = gates + 3 * units
        forEachLane(units) { lane in
            var value = lane.load(input) * lane.load(candidate)
            if let previousCell { value += lane.load(forget) * lane.load(previousCell) }
            let squashed = tanhApproximation(value)
            lane.store(value, cell)
            lane.store(squashed, cellTanh)
            lane.store(lane.load(output) * squashed, hidden)
        }
    }

    struct Gradients {
        let input: UnsafeMutablePointer<Float>
        let recurrent: UnsafeMutablePointer<Float>
        let bias: UnsafeMutablePointer<Float>
    }

    /// Backpropagation through all steps, for a forward pass that started from the zero state.
    ///
    /// `hiddenGradient` (`rows × units`) comes in as dL/dh from above and is overwritten;
    /// `gateGradient` (`rows × 4·units`) and `cellGradient` (`batch × units`) are scratch.
    func backward(_ x: UnsafePointer<Float>, steps: Int, batch: Int, weights: Weights, saved: Saved,
                  hidden: UnsafePointer<Float>, hiddenGradient: UnsafeMutablePointer<Float>,
                  gateGradient: UnsafeMutablePointer<Float>, cellGradient: UnsafeMutablePointer<Float>,
                  gradients: Gradients, inputGradient: UnsafeMutablePointer<Float>?) {
        cellGradient.update(repeating: 0, count: batch * units)
        let zeroCell = [Float](repeating: 0, count: units)
        zeroCell.withUnsafeBufferPointer { zeroCell in
            for step in stride(from: steps - 1, through: 0, by: -1) {
                let first = step * batch
                for row in 0..<batch {
                    let offset = (first + row) * units
                    let previousCell = step > 0 ? UnsafePointer(saved.cells + offset - batch * units) : zeroCell.baseAddress!
                    backwardCell(gates: saved.gates + (first + row) * gateWidth, previousCell: previousCell,
                                 cellTanh: saved.cellTanh + offset, hiddenGradient: hiddenGradient + offset,
                                 cellGradient: cellGradient + row * units,
                                 gateGradient: gateGradient + (first + row) * gateWidth)
                }
                if step > 0 {
                    gemm(batch, units, gateWidth, gateGradient + first * gateWidth, weights.recurrent, transposeB: true,
                         hiddenGradient + (first - batch) * units, beta: 1)
                }
            }
        }
        let rows = steps * batch
        // The recurrent weights saw h(t−1) at steps 1…, so one product over all those steps at once.
        if steps > 1 {
            gemm(units, gateWidth, rows - batch, hidden, transposeA: true, gateGradient + batch * gateWidth,
                 gradients.recurrent)
        } else {
            gradients.recurrent.update(repeating: 0, count: units * gateWidth)
        }
        gemm(inputs, gateWidth, rows, x, transposeA: true, gateGradient, gradients.input)
        columnSums(gateGradient, rows: rows, columns: gateWidth, into: gradients.bias)
        if let inputGradient {
            gemm(rows, inputs, gateWidth, gateGradient, weights.input, transposeB: true, inputGradient)
        }
    }

    /// One sequence at one step: the gates' gradients, and the cell gradient handed to step t − 1.
    private func backwardCell(gates: UnsafePointer<Float>, previousCell: UnsafePointer<Float>,
                              cellTanh: UnsafePointer<Float>, hiddenGradient: UnsafePointer<Float>,
                              cellGradient: UnsafeMutablePointer<Float>, gateGradient: UnsafeMutablePointer<Float>) {
        let input = gates, forget = gates + units, candidate = gates + 2 * units, output = gates + 3 * units
        forEachLane(units) { lane in
            let tanhC = lane.load(cellTanh), o = lane.load(output), i = lane.load(input), f = lane.load(forget)
            let g = lane.load(candidate), dh = lane.load(hiddenGradient)
            let dc = lane.load(cellGradient) + dh * o * (1 - tanhC * tanhC)
            lane.store(dc * g * i * (1 - i), gateGradient)
            lane.store(dc * lane.load(previousCell) * f * (1 - f), gateGradient + units)
            lane.store(dc * i * (1 - g * g), gateGradient + 2 * units)
            lane.store(dh * tanhC * o * (1 - o), gateGradient + 3 * units)
            lane.store(dc * f, cellGradient)
        }
    }
}
