/// The LSTM's memory between the windows of a live stream.
public struct StreamState: Sendable, Equatable {
    public var hidden: [Float]
    public var cell: [Float]

    /// The state at the start of a stream (and of every chunk in training): zeros.
    public init(units: Int) {
        hidden = [Float](repeating: 0, count: units)
        cell = hidden
    }
}

/// Classifies one window at a time, carrying the LSTM's state from window to window, for live
/// detection. A stream that starts from `StreamState(units:)` and is reset every
/// `windowsPerChunk` windows gives the probabilities `GestureModel.predict` gives.
public final class StreamingClassifier {
    public let model: GestureModel
    private let network: Network
    private let workspace: Workspace
    private let oneWindow = BatchShape(lengths: [1])

    public init(model: GestureModel) {
        self.model = model
        network = model.network
        workspace = Workspace(network, capacity: 1)
    }

    public var initialState: StreamState { StreamState(units: model.architecture.lstmUnits) }

    /// The class probabilities of one window of raw (unnormalized) features, `window ×
    /// featureCount` row-major; `state` becomes the state after it.
    public func step(_ window: [Float], state: inout StreamState) -> [Float] {
        let size = model.architecture.windowSize
        precondition(window.count == size, "a window holds \(size) values, not \(window.count)")
        precondition(state.hidden.count == model.architecture.lstmUnits && state.cell.count == model.architecture.lstmUnits)
        workspace.input.update(from: window, count: size)
        model.normalization.apply(to: UnsafeMutableBufferPointer(start: workspace.input, count: size))
        model.parameters.withUnsafeBufferPointer { parameters in
            state.hidden.withUnsafeMutableBufferPointer { hidden in
                state.cell.withUnsafeMutableBufferPointer { cell in
                    network.forwardInference(parameters.baseAddress!, shape: oneWindow, workspace: workspace,
                                             state: (hidden.baseAddress!, cell.baseAddress!))
                }
            }
        }
        return Array(UnsafeBufferPointer(start: workspace.probabilities, count: model.architecture.classes))
    }
}
