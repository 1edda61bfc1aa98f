import GestureMotion

/// The model's shape, Turi Create's activity classifier: a convolution whose kernel and stride are
/// one window, ReLU, dropout; an LSTM over the windows of a chunk; dense, batch norm, ReLU,
/// dropout; dense to the classes, softmax. Optionally GestureLab's own first layers before it:
/// temporal convolutions over the samples inside each window, each followed by ReLU.
public struct Architecture: Sendable, Equatable, Codable {
    /// Values in one window: window length × features.
    public var windowSize: Int
    public var classes: Int
    public var convolutionFilters: Int
    public var lstmUnits: Int
    public var denseUnits: Int
    public var convolutionDropout: Float = 0.2
    public var denseDropout: Float = 0.5
    /// nil for Turi Create's architecture.
    public var temporal: TemporalConvolution?

    /// - Parameter window: samples per window, which a temporal convolution (`layers.temporalFilters` > 0) needs.
    public init(windowSize: Int, classes: Int, layers: LayerSizes = LayerSizes(), window: Int? = nil) {
        self.windowSize = windowSize
        self.classes = classes
        convolutionFilters = layers.convolutionFilters
        lstmUnits = layers.lstmUnits
        denseUnits = layers.denseUnits
        if layers.temporalFilters > 0 {
            guard let window else { preconditionFailure("a temporal convolution needs the window's length") }
            temporal = TemporalConvolution(
                window: window, features: windowSize / window, filters: layers.temporalFilters,
                kernel: min(layers.temporalKernel, window), layers: layers.temporalLayers)
            precondition(temporal!.positions >= 1, "the temporal convolutions do not fit in a window of \(window)")
        }
    }

    public var layers: LayerSizes {
        LayerSizes(
            convolutionFilters: convolutionFilters, lstmUnits: lstmUnits, denseUnits: denseUnits,
            temporalFilters: temporal?.filters ?? 0, temporalKernel: temporal?.kernel ?? LayerSizes().temporalKernel,
            temporalLayers: temporal?.layers ?? 1)
    }
}

/// Filters sliding over the samples of a window, each spanning `kernel` samples of every feature:
/// what a window's values look like over time, before the window convolution sees it whole. With
/// more than one layer, each slides over the one before's output, as in DeepConvLSTM.
public struct TemporalConvolution: Sendable, Equatable, Codable {
    /// The input's layout: samples per window, features per sample.
    public var window: Int
    public var features: Int
    public var filters: Int
    public var kernel: Int
    public var layers = 1

    public init(window: Int, features: Int, filters: Int, kernel: Int, layers: Int = 1) {
        self.window = window
        self.features = features
        self.filters = filters
        self.kernel = kernel
        self.layers = layers
    }

    /// Model files from before stacking hold one layer and do not say so.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        window = try container.decode(Int.self, forKey: .window)
        features = try container.decode(Int.self, forKey: .features)
        filters = try container.decode(Int.self, forKey: .filters)
        kernel = try container.decode(Int.self, forKey: .kernel)
        layers = try container.decodeIfPresent(Int.self, forKey: .layers) ?? 1
    }

    /// Where a kernel fits in a window after the last layer.
    var positions: Int { positions(after: layers) }
    /// One window's values after the last layer.
    var outputSize: Int { positions * filters }

    /// The samples of a window after `count` layers: each layer's kernel fits `kernel − 1` fewer times.
    func positions(after count: Int) -> Int { window - count * (kernel - 1) }
    /// A layer's input: samples per window, values per sample.
    func input(of layer: Int) -> (samples: Int, values: Int) {
        (positions(after: layer), layer == 0 ? features : filters)
    }
    /// One kernel's inputs in a layer: `kernel` samples of every value, consecutive in a window's row.
    func span(of layer: Int) -> Int { kernel * input(of: layer).values }
}

/// The widths of the hidden layers; the defaults are the book's (246,500 weights for 6 features
/// and 4 classes), smaller ones fit small boards.
public struct LayerSizes: Sendable, Equatable, Codable {
    public var convolutionFilters = 64
    public var lstmUnits = 200
    public var denseUnits = 128
    /// The temporal convolution's filters; 0 for none, Turi Create's architecture.
    public var temporalFilters = 0
    /// The samples each temporal filter spans.
    public var temporalKernel = 5
    /// Temporal convolutions stacked, each over the one before's output.
    public var temporalLayers = 1

    public init() {}

    /// The board preset: in int8 it fits a Cortex-M4 with 256 KB of flash and 64 KB of RAM, and 25
    /// predictions a second take about 2 million of its instructions (docs/interop.md's figures).
    public static let board = LayerSizes(convolutionFilters: 16, lstmUnits: 32, denseUnits: 32)

    public init(
        convolutionFilters: Int, lstmUnits: Int, denseUnits: Int, temporalFilters: Int = 0, temporalKernel: Int = 5,
        temporalLayers: Int = 1
    ) {
        self.convolutionFilters = convolutionFilters
        self.lstmUnits = lstmUnits
        self.denseUnits = denseUnits
        self.temporalFilters = temporalFilters
        self.temporalKernel = temporalKernel
        self.temporalLayers = temporalLayers
    }
}

extension Architecture {
    /// About the least memory training takes: every parameter four times (the weights, their
    /// gradient and Adam's two moments) and, for each window of a batch, each layer's output and
    /// its gradient. Counted in Doubles, so sizes no machine has cannot overflow.
    public func trainingBytes(windowsPerBatch: Int) -> Double {
        var parameters = 0.0, activations = Double(windowSize)
        var inputs = Double(windowSize)
        if let temporal {
            for layer in 0..<temporal.layers {
                let positions = Double(temporal.positions(after: layer + 1)), span = Double(temporal.span(of: layer))
                parameters += (span + 1) * Double(temporal.filters)
                activations += positions * (span + 2 * Double(temporal.filters))
            }
            inputs = Double(temporal.outputSize)
        }
        let filters = Double(convolutionFilters), units = Double(lstmUnits), dense = Double(denseUnits)
        parameters += (inputs + 1) * filters + (filters + units + 1) * 4 * units + (units + 1) * dense + 4 * dense
        parameters += (dense + 1) * Double(classes)
        activations += 2 * (filters + 6 * units + 2 * dense + Double(classes))
        return 4 * (4 * parameters + Double(windowsPerBatch) * activations)
    }
}

/// The layers, and where each one's parameters sit in the one flat parameter vector (`layout`).
struct Network {
    let architecture: Architecture
    /// Each temporal convolution as a dense layer on each kernel position's span (see `unfold`).
    let temporal: [Affine]
    let convolution: Affine
    let lstm: LSTM
    let dense: Affine
    let batchNorm: BatchNorm
    let output: Affine
    let convolutionDropout: Dropout
    let denseDropout: Dropout
    let loss: SoftmaxCrossEntropy
    let layout: ParameterLayout

    init(_ architecture: Architecture) {
        self.architecture = architecture
        let stack = architecture.temporal
        temporal = (0..<(stack?.layers ?? 0)).map { Affine(inputs: stack!.span(of: $0), outputs: stack!.filters) }
        convolution = Affine(
            inputs: architecture.temporal?.outputSize ?? architecture.windowSize,
            outputs: architecture.convolutionFilters)
        lstm = LSTM(inputs: architecture.convolutionFilters, units: architecture.lstmUnits)
        dense = Affine(inputs: architecture.lstmUnits, outputs: architecture.denseUnits)
        batchNorm = BatchNorm(features: architecture.denseUnits)
        output = Affine(inputs: architecture.denseUnits, outputs: architecture.classes)
        convolutionDropout = Dropout(rate: architecture.convolutionDropout)
        denseDropout = Dropout(rate: architecture.denseDropout)
        loss = SoftmaxCrossEntropy(classes: architecture.classes)
        layout = ParameterLayout(
            temporal: temporal, convolution: convolution, lstm: lstm, dense: dense, batchNorm: batchNorm,
            output: output)
    }

    /// Xavier-uniform weights, zero biases, batch norm as the identity.
    func initialParameters(using random: inout Xoshiro256) -> [Float] {
        var parameters = [Float](repeating: 0, count: layout.parameterCount)
        func xavier(_ weight: Range<Int>, fanIn: Int, fanOut: Int) {
            let limit = (6 / Float(fanIn + fanOut)).squareRoot()
            for index in weight { parameters[index] = (2 * random.unitFloat() - 1) * limit }
        }
        for (layer, ranges) in zip(temporal, layout.temporal) {
            xavier(ranges.weight, fanIn: layer.inputs, fanOut: layer.outputs)
        }
        xavier(layout.convolution.weight, fanIn: convolution.inputs, fanOut: convolution.outputs)
        // Each LSTM gate is a layer of its own for the initialisation's fan-out.
        xavier(layout.lstm.input, fanIn: lstm.inputs, fanOut: lstm.units)
        xavier(layout.lstm.recurrent, fanIn: lstm.units, fanOut: lstm.units)
        xavier(layout.dense.weight, fanIn: dense.inputs, fanOut: dense.outputs)
        xavier(layout.output.weight, fanIn: output.inputs, fanOut: output.outputs)
        for index in layout.batchNorm.scale { parameters[index] = 1 }
        for index in layout.batchNorm.runningVariance { parameters[index] = 1 }
        return parameters
    }

    /// The matrices streaming prediction reads as bfloat16: the convolution's, the LSTM's input and
    /// recurrent weights as one, dense's.
    var bfloat16Matrices: [Range<Int>] { [layout.convolution.weight, layout.lstm.weights, layout.dense.weight] }

    /// `parameters` with the `bfloat16Matrices` rounded to bfloat16, as every `GestureModel` holds
    /// them, so that streaming and offline prediction use the same weights. Rounded in place: an
    /// array the caller does not keep is not copied.
    func roundingToBFloat16(_ parameters: consuming [Float]) -> [Float] {
        for range in bfloat16Matrices {
            for index in range { parameters[index] = parameters[index].roundedToBFloat16 }
        }
        return parameters
    }

    func lstmWeights(_ parameters: UnsafePointer<Float>) -> LSTM.Weights {
        LSTM.Weights(
            input: parameters + layout.lstm.input.lowerBound, recurrent: parameters + layout.lstm.recurrent.lowerBound,
            bias: parameters + layout.lstm.bias.lowerBound)
    }
}

/// Where an inference pass stops.
enum InferenceStage {
    /// Dense's output, before batch norm, in `Workspace.dense`.
    case dense
    /// The class probabilities, in `Workspace.probabilities`.
    case probabilities
}

/// Memory for one network's passes over up to `capacity` rows (windows), allocated once.
final class Workspace {
    let capacity: Int
    let input: UnsafeMutablePointer<Float>
    /// For each temporal convolution: each kernel position's span of each row, then its output
    /// (the next layer's input) and that output's gradient.
    let unfolded: [UnsafeMutablePointer<Float>]
    let temporal: [UnsafeMutablePointer<Float>]
    let temporalGradient: [UnsafeMutablePointer<Float>]
    /// The gradient of a temporal convolution's spans, before it is folded back onto its input.
    let unfoldedGradient: UnsafeMutablePointer<Float>
    let convolution: UnsafeMutablePointer<Float>
    let convolutionMask: UnsafeMutablePointer<Float>
    let lstm: LSTM.Saved
    let hidden: UnsafeMutablePointer<Float>
    let dense: UnsafeMutablePointer<Float>
    let batchNorm: BatchNorm.Saved
    let denseMask: UnsafeMutablePointer<Float>
    /// Probabilities after a forward pass.
    let probabilities: UnsafeMutablePointer<Float>
    let labels: UnsafeMutablePointer<Int>
    /// Each row's weight in the loss: 1 for a real window, 0 for padding.
    let lossWeights: UnsafeMutablePointer<Float>

    let logitGradient: UnsafeMutablePointer<Float>
    let denseGradient: UnsafeMutablePointer<Float>
    let hiddenGradient: UnsafeMutablePointer<Float>
    let lstmScratch: LSTM.Scratch
    /// Room to pack any right-hand factor, for `gemm`.
    let packing: UnsafeMutablePointer<Float>
    let convolutionGradient: UnsafeMutablePointer<Float>
    let batchNormScratch: UnsafeMutablePointer<Float>
    /// The threads the passes share their products with; nil for this thread alone.
    let team: ThreadTeam?

    private let allocations: [UnsafeMutablePointer<Float>]

    init(_ network: Network, capacity: Int, team: ThreadTeam? = nil) {
        self.capacity = capacity
        self.team = team
        let architecture = network.architecture
        let filters = architecture.convolutionFilters, units = architecture.lstmUnits
        let denseUnits = architecture.denseUnits
        var buffers = Buffers(rowCount: capacity)
        input = buffers.rows(architecture.windowSize)
        (unfolded, temporal, temporalGradient, unfoldedGradient) = Self.temporalBuffers(
            architecture.temporal, in: &buffers)
        convolution = buffers.rows(filters)
        convolutionMask = buffers.rows(filters)
        lstm = LSTM.Saved(gates: buffers.rows(4 * units), cells: buffers.rows(units), cellTanh: buffers.rows(units))
        hidden = buffers.rows(units)
        dense = buffers.rows(denseUnits)
        batchNorm = BatchNorm.Saved(
            normalized: buffers.rows(denseUnits), inverseDeviation: buffers.zeroed(denseUnits),
            mean: buffers.zeroed(denseUnits), variance: buffers.zeroed(denseUnits))
        denseMask = buffers.rows(denseUnits)
        probabilities = buffers.rows(architecture.classes)
        lossWeights = buffers.rows(1)
        logitGradient = buffers.rows(architecture.classes)
        denseGradient = buffers.rows(denseUnits)
        hiddenGradient = buffers.rows(units)
        lstmScratch = LSTM.Scratch(
            gateGradient: buffers.rows(4 * units), cellGradient: buffers.rows(units),
            previousHidden: buffers.rows(units))
        packing = buffers.zeroed(Self.packingCount(network, capacity: capacity))
        convolutionGradient = buffers.rows(filters)
        batchNormScratch = buffers.zeroed(2 * denseUnits)
        labels = .allocate(capacity: capacity)
        labels.initialize(repeating: 0, count: capacity)
        allocations = buffers.allocations
    }

    /// Each temporal convolution's unfolded spans, output and output gradient, and the span
    /// gradient that each but the first folds back onto its input.
    private static func temporalBuffers(
        _ stack: TemporalConvolution?, in buffers: inout Buffers
    ) -> (
        unfolded: [UnsafeMutablePointer<Float>], output: [UnsafeMutablePointer<Float>],
        outputGradient: [UnsafeMutablePointer<Float>], unfoldedGradient: UnsafeMutablePointer<Float>
    ) {
        guard let stack else { return ([], [], [], buffers.zeroed(1)) }
        let layers = 0..<stack.layers
        let unfoldedSizes = layers.map { buffers.rowCount * stack.positions(after: $0 + 1) * stack.span(of: $0) }
        let unfolded = unfoldedSizes.map { buffers.zeroed($0) }
        let output = layers.map { buffers.rows(stack.positions(after: $0 + 1) * stack.filters) }
        let outputGradient = layers.map { buffers.rows(stack.positions(after: $0 + 1) * stack.filters) }
        let unfoldedGradient = buffers.zeroed(max(unfoldedSizes.dropFirst().max() ?? 0, 1))
        return (unfolded, output, outputGradient, unfoldedGradient)
    }

    /// Room to pack the right-hand factor of any product the passes make (see `gemm`).
    private static func packingCount(_ network: Network, capacity: Int) -> Int {
        // Products of fewer rows than the kernel's block never pack: streaming's single rows, but
        // for the temporal convolutions', one a kernel position.
        let packs = { (rows: Int) in rows >= PackedFactor.blockRows }
        let temporal = network.temporal.enumerated().map { layer, affine in
            let rows = capacity * network.architecture.temporal!.positions(after: layer + 1)
            return packs(rows) ? affine.packingCount(rows: rows) : 1
        }
        let layers = [
            network.convolution.packingCount(rows: capacity), network.lstm.packingCount(rows: capacity),
            network.dense.packingCount(rows: capacity), network.output.packingCount(rows: capacity),
        ]
        return max(packs(capacity) ? layers.max()! : 1, temporal.max() ?? 1)
    }

    deinit {
        for pointer in allocations { pointer.deallocate() }
        labels.deallocate()
    }
}

/// A workspace's buffers, zeroed, kept to be freed together.
private struct Buffers {
    /// The workspace's capacity.
    let rowCount: Int
    private(set) var allocations: [UnsafeMutablePointer<Float>] = []

    mutating func zeroed(_ count: Int) -> UnsafeMutablePointer<Float> {
        let pointer = UnsafeMutablePointer<Float>.allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
        allocations.append(pointer)
        return pointer
    }

    /// A buffer of `rowCount` rows of `width`.
    mutating func rows(_ width: Int) -> UnsafeMutablePointer<Float> { zeroed(rowCount * width) }
}

extension Network {
    /// The training pass over the rows already in `workspace.input`, laid out as `shape`, with
    /// fresh dropout masks; leaves probabilities in `workspace.probabilities` and updates batch
    /// norm's running statistics.
    func forwardTraining(
        _ parameters: UnsafeMutablePointer<Float>, shape: BatchShape, workspace: Workspace,
        random: inout Xoshiro256
    ) {
        let rows = shape.rows
        convolutionForward(parameters, rows: rows, workspace: workspace)
        let convolutionCount = rows * convolution.outputs
        convolutionDropout.drawMask(workspace.convolutionMask, count: convolutionCount, using: &random)
        convolutionDropout.apply(workspace.convolutionMask, to: workspace.convolution, count: convolutionCount)
        lstm.forward(
            workspace.convolution, shape: shape, weights: lstmWeights(parameters),
            saving: workspace.lstm, into: workspace.hidden, packing: workspace.packing, team: workspace.team)
        denseForward(parameters, rows: rows, workspace: workspace)
        let norm = layout.batchNorm
        batchNorm.forwardTraining(
            workspace.dense, rows: rows, scale: parameters + norm.scale.lowerBound,
            shift: parameters + norm.shift.lowerBound, saving: workspace.batchNorm, into: workspace.dense)
        batchNorm.updateRunning(
            mean: parameters + norm.runningMean.lowerBound, variance: parameters + norm.runningVariance.lowerBound,
            from: workspace.batchNorm)
        let denseCount = rows * dense.outputs
        applyReLU(workspace.dense, count: denseCount)
        denseDropout.drawMask(workspace.denseMask, count: denseCount, using: &random)
        denseDropout.apply(workspace.denseMask, to: workspace.dense, count: denseCount)
        outputForward(parameters, rows: rows, workspace: workspace)
    }

    /// The inference pass: no dropout, batch norm with its running statistics; through `stage`.
    /// The LSTM starts from `initial`, a state for each of the batch's sequences, or from zeros.
    func forwardInference(
        _ parameters: UnsafePointer<Float>, shape: BatchShape, workspace: Workspace,
        through stage: InferenceStage = .probabilities, from initial: LSTM.State? = nil
    ) {
        let rows = shape.rows
        convolutionForward(parameters, rows: rows, workspace: workspace)
        lstm.forward(
            workspace.convolution, shape: shape, weights: lstmWeights(parameters),
            saving: workspace.lstm, into: workspace.hidden, packing: workspace.packing, from: initial,
            team: workspace.team)
        denseForward(parameters, rows: rows, workspace: workspace)
        if stage == .probabilities { inferenceHead(parameters, rows: rows, workspace: workspace) }
    }

    /// The convolution, with its ReLU, of what `convolutionInput` gives, into `workspace.convolution`.
    private func convolutionForward(_ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace) {
        convolution.forward(
            convolutionInput(parameters, rows: rows, workspace: workspace), rows: rows,
            weight: parameters + layout.convolution.weight.lowerBound,
            bias: parameters + layout.convolution.bias.lowerBound, into: workspace.convolution,
            packing: workspace.packing, team: workspace.team)
        applyReLU(workspace.convolution, count: rows * convolution.outputs)
    }

    /// What the convolution reads of the rows in `workspace.input`: those rows, or after temporal
    /// convolutions, the last one's output (with ReLU) in `workspace.temporal`.
    func convolutionInput(_ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace) -> UnsafePointer<Float> {
        var layerInput = UnsafePointer(workspace.input)
        guard let shape = architecture.temporal else { return layerInput }
        for (layer, (affine, ranges)) in zip(temporal, layout.temporal).enumerated() {
            let positions = shape.positions(after: layer + 1)
            unfold(layerInput, rows: rows, shape, layer: layer, into: workspace.unfolded[layer])
            affine.forward(
                workspace.unfolded[layer], rows: rows * positions, weight: parameters + ranges.weight.lowerBound,
                bias: parameters + ranges.bias.lowerBound, into: workspace.temporal[layer], packing: workspace.packing,
                team: workspace.team)
            applyReLU(workspace.temporal[layer], count: rows * positions * shape.filters)
            layerInput = UnsafePointer(workspace.temporal[layer])
        }
        return layerInput
    }

    /// Each row's span at each kernel position of `layer`, one after another: a window's samples
    /// are its row's consecutive runs of values, so a span is consecutive values.
    private func unfold(
        _ input: UnsafePointer<Float>, rows: Int, _ shape: TemporalConvolution, layer: Int,
        into unfolded: UnsafeMutablePointer<Float>
    ) {
        let (samples, values) = shape.input(of: layer)
        let span = shape.span(of: layer), positions = shape.positions(after: layer + 1)
        for row in 0..<rows {
            for position in 0..<positions {
                (unfolded + (row * positions + position) * span).update(
                    from: input + (row * samples + position) * values, count: span)
            }
        }
    }

    /// `unfold` backwards: each span's gradient added onto the values it was copied from.
    private func fold(
        _ unfolded: UnsafePointer<Float>, rows: Int, _ shape: TemporalConvolution, layer: Int,
        into input: UnsafeMutablePointer<Float>
    ) {
        let (samples, values) = shape.input(of: layer)
        let span = shape.span(of: layer), positions = shape.positions(after: layer + 1)
        input.update(repeating: 0, count: rows * samples * values)
        for row in 0..<rows {
            for position in 0..<positions {
                let target = input + (row * samples + position) * values
                let source = unfolded + (row * positions + position) * span
                for index in 0..<span { target[index] += source[index] }
            }
        }
    }

    /// From dense's output in `workspace.dense` to the probabilities, without dropout.
    func inferenceHead(_ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace) {
        let norm = layout.batchNorm
        batchNorm.forwardInference(
            workspace.dense, rows: rows, scale: parameters + norm.scale.lowerBound,
            shift: parameters + norm.shift.lowerBound, mean: parameters + norm.runningMean.lowerBound,
            variance: parameters + norm.runningVariance.lowerBound, into: workspace.dense)
        applyReLU(workspace.dense, count: rows * dense.outputs)
        outputForward(parameters, rows: rows, workspace: workspace)
    }

    private func denseForward(_ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace) {
        dense.forward(
            workspace.hidden, rows: rows, weight: parameters + layout.dense.weight.lowerBound,
            bias: parameters + layout.dense.bias.lowerBound, into: workspace.dense, packing: workspace.packing,
            team: workspace.team)
    }

    private func outputForward(_ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace) {
        output.forward(
            workspace.dense, rows: rows, weight: parameters + layout.output.weight.lowerBound,
            bias: parameters + layout.output.bias.lowerBound, into: workspace.probabilities,
            packing: workspace.packing, team: workspace.team)
        loss.softmax(workspace.probabilities, rows: rows)
    }

    /// The loss of the last training pass, given `workspace.labels` and `weights`, its targets
    /// smoothed by `labelSmoothing`, and the gradient of every trainable parameter, written (not
    /// added) to `gradient`.
    func backward(
        _ parameters: UnsafePointer<Float>, shape: BatchShape, workspace: Workspace, labelSmoothing: Float = 0,
        gradient: UnsafeMutablePointer<Float>
    ) -> Float {
        let rows = shape.rows
        let lossValue = loss.loss(
            probabilities: workspace.probabilities, labels: workspace.labels,
            weights: workspace.lossWeights, rows: rows, smoothing: labelSmoothing,
            logitGradient: workspace.logitGradient)
        headBackward(parameters, rows: rows, workspace: workspace, gradient: gradient)
        lstm.backward(
            workspace.convolution, shape: shape, weights: lstmWeights(parameters),
            saved: workspace.lstm, hidden: workspace.hidden, hiddenGradient: workspace.hiddenGradient,
            scratch: workspace.lstmScratch,
            gradients: LSTM.Gradients(
                input: gradient + layout.lstm.input.lowerBound, recurrent: gradient + layout.lstm.recurrent.lowerBound,
                bias: gradient + layout.lstm.bias.lowerBound),
            inputGradient: workspace.convolutionGradient, packing: workspace.packing, team: workspace.team)
        convolutionBackward(parameters, rows: rows, workspace: workspace, gradient: gradient)
        return lossValue
    }

    /// From the logits' gradient in `workspace.logitGradient` through the output layer, dropout,
    /// ReLU, batch norm and dense, to the LSTM output's gradient in `workspace.hiddenGradient`.
    private func headBackward(
        _ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace, gradient: UnsafeMutablePointer<Float>
    ) {
        output.backward(
            workspace.dense, outputGradient: workspace.logitGradient, rows: rows,
            weight: parameters + layout.output.weight.lowerBound,
            weightGradient: gradient + layout.output.weight.lowerBound,
            biasGradient: gradient + layout.output.bias.lowerBound, inputGradient: workspace.denseGradient,
            packing: workspace.packing, team: workspace.team)
        let denseCount = rows * dense.outputs
        denseDropout.apply(workspace.denseMask, to: workspace.denseGradient, count: denseCount)
        // The dropped output is positive exactly where the ReLU passed and the mask kept.
        reluBackward(output: workspace.dense, gradient: workspace.denseGradient, count: denseCount)
        batchNorm.backward(
            gradient: workspace.denseGradient, rows: rows, saved: workspace.batchNorm,
            scale: parameters + layout.batchNorm.scale.lowerBound,
            scaleGradient: gradient + layout.batchNorm.scale.lowerBound,
            shiftGradient: gradient + layout.batchNorm.shift.lowerBound, workspace: workspace.batchNormScratch)
        dense.backward(
            workspace.hidden, outputGradient: workspace.denseGradient, rows: rows,
            weight: parameters + layout.dense.weight.lowerBound,
            weightGradient: gradient + layout.dense.weight.lowerBound,
            biasGradient: gradient + layout.dense.bias.lowerBound, inputGradient: workspace.hiddenGradient,
            packing: workspace.packing, team: workspace.team)
    }

    /// From the LSTM input's gradient in `workspace.convolutionGradient` through dropout, ReLU,
    /// the convolution and the temporal convolutions.
    private func convolutionBackward(
        _ parameters: UnsafePointer<Float>, rows: Int, workspace: Workspace, gradient: UnsafeMutablePointer<Float>
    ) {
        let count = rows * convolution.outputs
        convolutionDropout.apply(workspace.convolutionMask, to: workspace.convolutionGradient, count: count)
        reluBackward(output: workspace.convolution, gradient: workspace.convolutionGradient, count: count)
        convolution.backward(
            workspace.temporal.last ?? workspace.input, outputGradient: workspace.convolutionGradient,
            rows: rows, weight: parameters + layout.convolution.weight.lowerBound,
            weightGradient: gradient + layout.convolution.weight.lowerBound,
            biasGradient: gradient + layout.convolution.bias.lowerBound,
            inputGradient: workspace.temporalGradient.last, packing: workspace.packing, team: workspace.team)
        if let shape = architecture.temporal { temporalBackward(parameters, rows: rows, shape, workspace, gradient) }
    }

    /// From the last temporal convolution's output gradient in `workspace.temporalGradient` down
    /// through each layer, folding each one's span gradient back onto the layer before.
    private func temporalBackward(
        _ parameters: UnsafePointer<Float>, rows: Int, _ shape: TemporalConvolution, _ workspace: Workspace,
        _ gradient: UnsafeMutablePointer<Float>
    ) {
        for layer in temporal.indices.reversed() {
            let affine = temporal[layer], ranges = layout.temporal[layer]
            let positions = shape.positions(after: layer + 1)
            reluBackward(
                output: workspace.temporal[layer], gradient: workspace.temporalGradient[layer],
                count: rows * positions * shape.filters)
            affine.backward(
                workspace.unfolded[layer], outputGradient: workspace.temporalGradient[layer], rows: rows * positions,
                weight: parameters + ranges.weight.lowerBound, weightGradient: gradient + ranges.weight.lowerBound,
                biasGradient: gradient + ranges.bias.lowerBound,
                inputGradient: layer == 0 ? nil : workspace.unfoldedGradient, packing: workspace.packing,
                team: workspace.team)
            if layer > 0 {
                fold(
                    workspace.unfoldedGradient, rows: rows, shape, layer: layer,
                    into: workspace.temporalGradient[layer - 1])
            }
        }
    }
}
