import CLearningKernels

/// The LSTM's memory between the windows of a live stream.
public struct StreamState: Sendable, Equatable {
    public var hidden: [Float]
    public var cell: [Float]
    /// The moving averages the rejection's test of the motion's statistics reads.
    public var motion: MotionAverages
    /// The stream's last samples, as read, that the random convolutions read (none without).
    public var recentSamples: [Float] = []

    /// The state at the start of a stream (and of every chunk in training): zeros.
    public init(units: Int, features: Int = 0) {
        hidden = [Float](repeating: 0, count: units)
        cell = hidden
        motion = MotionAverages(features: features)
    }
}

/// Classifies one window at a time, carrying the LSTM's state from window to window, for live
/// detection. A stream that starts from `StreamState(units:)` gives the probabilities
/// `GestureModel.predict` gives for the whole sequence: both carry the state on past the chunks
/// that training starts afresh.
///
/// It reads the model's large matrices as packed bfloat16 (`BFloat16Matrix`), the values the
/// model holds, so one prediction reads half the bytes of the offline path's Floats.
public final class StreamingClassifier {
    public let model: GestureModel
    public let kernels: ProductKernels
    private let network: Network
    private let convolution: BFloat16Matrix
    /// The LSTM's input and recurrent weights stacked: one product of [convolution output, hidden].
    private let lstm: BFloat16Matrix
    private let dense: BFloat16Matrix
    private let workspace: Workspace
    /// The convolution's output, then the hidden state: the LSTM's one input row.
    private let lstmInput: UnsafeMutablePointer<Float>

    /// `kernels` do the products of one row by the large matrices (by default the fastest here).
    public init(model: GestureModel, kernels: ProductKernels = .chosen) {
        let network = model.network, layout = network.layout
        let filters = network.convolution.outputs, units = network.lstm.units
        self.model = model
        self.kernels = kernels
        self.network = network
        (convolution, lstm, dense) = model.parameters.withUnsafeBufferPointer { parameters in
            let base = parameters.baseAddress!
            return (
                BFloat16Matrix(
                    base + layout.convolution.weight.lowerBound, k: network.convolution.inputs, n: filters,
                    kernels: kernels),
                BFloat16Matrix(
                    base + layout.lstm.weights.lowerBound, k: filters + units, n: network.lstm.gateWidth,
                    kernels: kernels),
                BFloat16Matrix(
                    base + layout.dense.weight.lowerBound, k: units, n: network.dense.outputs, kernels: kernels)
            )
        }
        workspace = Workspace(network, capacity: 1)
        lstmInput = .allocate(capacity: filters + units)
    }

    deinit { lstmInput.deallocate() }

    public var initialState: StreamState {
        StreamState(units: model.architecture.lstmUnits, features: model.featureNames.count)
    }

    /// The class probabilities of one window of raw (unnormalized) features, `window ×
    /// featureCount` row-major; `state` becomes the state after it.
    public func step(_ window: [Float], state: inout StreamState) -> [Float] {
        let size = model.architecture.windowSize
        precondition(window.count == size, "a window holds \(size) values, not \(window.count)")
        precondition(
            state.hidden.count == model.architecture.lstmUnits && state.cell.count == model.architecture.lstmUnits)
        workspace.input.update(from: window, count: size)
        model.normalization.apply(to: UnsafeMutableBufferPointer(start: workspace.input, count: size))
        if let motion = model.rejection?.motion {
            state.motion.add(UnsafeBufferPointer(start: workspace.input, count: size), decay: motion.decay)
        }
        model.parameters.withUnsafeBufferPointer { parameters in
            state.hidden.withUnsafeMutableBufferPointer { hidden in
                state.cell.withUnsafeMutableBufferPointer { cell in
                    forward(parameters.baseAddress!, hidden: hidden.baseAddress!, cell: cell.baseAddress!)
                }
            }
        }
        let probabilities =
            model.neighbours.map { vote($0, state: state) }
            ?? Array(UnsafeBufferPointer(start: workspace.probabilities, count: model.architecture.classes))
        guard let convolutions = model.randomConvolutions else { return probabilities }
        return RandomConvolutionClassifier.averaged(
            probabilities, convolutions.scores(ofWindow: window, recent: &state.recentSamples))
    }

    /// The nearest neighbours' probabilities for the window `forward` ran last.
    private func vote(_ neighbours: NearestNeighbours, state: StreamState) -> [Float] {
        let vote = { (activations: UnsafePointer<Float>) in
            neighbours.probabilities(
                network: self.workspace.probabilities, networkClasses: self.model.architecture.classes,
                activations: activations)
        }
        switch neighbours.embedding {
        case .dense: return vote(workspace.dense)
        case .lstm: return state.hidden.withUnsafeBufferPointer { vote($0.baseAddress!) }
        }
    }

    /// Whether the window `step` classified last is unknown motion to the model's rejection (never
    /// without one): `probabilities` are that step's, `state` the state after it.
    public func rejects(_ probabilities: [Float], state: StreamState) -> Bool {
        guard let rejection = model.rejection,
            let top = probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] })
        else { return false }
        if rejection.motion?.rejects(state.motion, as: top) == true { return true }
        switch rejection.embedding {
        case .dense: return rejection.rejects(workspace.dense, as: top)
        case .lstm: return state.hidden.withUnsafeBufferPointer { rejection.rejects($0.baseAddress!, as: top) }
        }
    }

    /// `Network.forwardInference` for one window, its products on the packed matrices.
    private func forward(
        _ parameters: UnsafePointer<Float>, hidden: UnsafeMutablePointer<Float>,
        cell: UnsafeMutablePointer<Float>
    ) {
        let filters = network.convolution.outputs, units = network.lstm.units, layout = network.layout
        lstmInput.update(from: parameters + layout.convolution.bias.lowerBound, count: filters)
        convolution.multiply(
            network.convolutionInput(parameters, rows: 1, workspace: workspace), into: lstmInput, adding: true)
        applyReLU(lstmInput, count: filters)
        (lstmInput + filters).update(from: hidden, count: units)
        let gates = workspace.lstm.gates
        gates.update(from: parameters + layout.lstm.bias.lowerBound, count: network.lstm.gateWidth)
        lstm.multiply(lstmInput, into: gates, adding: true)
        gl_lstm_step_forward(1, Int32(units), gates, cell, workspace.lstm.cells, workspace.lstm.cellTanh, hidden)
        cell.update(from: workspace.lstm.cells, count: units)
        workspace.dense.update(from: parameters + layout.dense.bias.lowerBound, count: network.dense.outputs)
        dense.multiply(hidden, into: workspace.dense, adding: true)
        network.inferenceHead(parameters, rows: 1, workspace: workspace)
    }
}
