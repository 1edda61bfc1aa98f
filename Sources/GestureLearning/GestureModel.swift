import GestureMotion

/// A trained classifier and everything needed to use it on new recordings.
public struct GestureModel: Sendable, Equatable {
    /// The features it reads, in the order of a window's columns.
    public internal(set) var featureNames: [String]
    public internal(set) var windowing: Windowing
    /// The sampling rate of its training data, in Hz.
    public internal(set) var samplingRate: Double
    public internal(set) var classNames: [String]
    public internal(set) var normalization: FeatureNormalization
    public internal(set) var architecture: Architecture
    /// What it was trained and validated on; nil for a model from before the record or from elsewhere.
    public internal(set) var trainingRecord: TrainingRecord?
    /// Whose model it is and how it was made theirs; nil for a model trained for everyone.
    public internal(set) var personalization: Personalization?
    /// For a model personalised by k nearest neighbours, the classifier that replaces the
    /// network's output (`classNames` are then the network's classes and any the person added).
    public internal(set) var neighbours: NearestNeighbours?
    /// What makes a window unknown motion; nil for a model from before rejection, or fine-tuned.
    public internal(set) var rejection: Rejection?
    /// MiniRocket's classifier, trained on the same windows, whose class scores each window's
    /// probabilities are averaged with; nil for the network alone (and for a model personalised).
    public internal(set) var randomConvolutions: RandomConvolutionClassifier?
    /// The network's parameters in `Network`'s layout, its large weight matrices rounded to
    /// bfloat16 (`Network.roundingToBFloat16`); training keeps Floats and rounds the model it makes.
    var parameters: [Float]

    var network: Network { Network(architecture) }

    /// The model before training: Xavier-initialized from `seed`.
    public init(untrained description: ModelDescription, normalization: FeatureNormalization, seed: UInt64) {
        featureNames = description.featureNames
        windowing = description.windowing
        samplingRate = description.samplingRate
        classNames = description.classNames
        self.normalization = normalization
        architecture = Architecture(
            windowSize: description.windowing.window * description.featureNames.count,
            classes: description.classNames.count, layers: description.layers, window: description.windowing.window)
        var random = Xoshiro256(seed: seed)
        let network = Network(architecture)
        parameters = network.roundingToBFloat16(network.initialParameters(using: &random))
    }

    init(
        featureNames: [String], windowing: Windowing, samplingRate: Double, classNames: [String],
        normalization: FeatureNormalization, architecture: Architecture, parameters: [Float],
        trainingRecord: TrainingRecord? = nil, personalization: Personalization? = nil,
        neighbours: NearestNeighbours? = nil, rejection: Rejection? = nil,
        randomConvolutions: RandomConvolutionClassifier? = nil
    ) {
        self.featureNames = featureNames
        self.windowing = windowing
        self.samplingRate = samplingRate
        self.classNames = classNames
        self.normalization = normalization
        self.architecture = architecture
        self.parameters = Network(architecture).roundingToBFloat16(parameters)
        self.trainingRecord = trainingRecord
        self.personalization = personalization
        self.neighbours = neighbours
        self.rejection = rejection
        self.randomConvolutions = randomConvolutions
    }

    /// This model without its random convolutions: what the exports carry.
    public var networkAlone: GestureModel {
        var model = self
        model.randomConvolutions = nil
        return model
    }

    /// This model with other parameters (rounded as every model's are).
    func replacingParameters(_ parameters: [Float]) -> GestureModel {
        GestureModel(
            featureNames: featureNames, windowing: windowing, samplingRate: samplingRate, classNames: classNames,
            normalization: normalization, architecture: architecture, parameters: parameters,
            trainingRecord: trainingRecord, personalization: personalization, neighbours: neighbours,
            rejection: rejection, randomConvolutions: randomConvolutions)
    }

    /// Each window's class probabilities for each sequence (`windowCount × classes`, row-major),
    /// the LSTM's state carried from window to window through the whole sequence, as a live stream
    /// runs on (training starts it afresh at every chunk); averaged with the random convolutions'
    /// scores when the model has them.
    public func predict(_ sequences: [LabeledSequence]) -> [[Float]] {
        let probabilities = networkPredictions(sequences)
        guard let randomConvolutions else { return probabilities }
        return zip(probabilities, randomConvolutions.scores(sequences)).map(RandomConvolutionClassifier.averaged)
    }

    /// `predict`'s probabilities from the network (and k nearest neighbours) alone.
    func networkPredictions(_ sequences: [LabeledSequence]) -> [[Float]] {
        let chunks = ChunkSet(
            sequences, windowing: windowing, classCount: classNames.count, normalization: normalization)
        let probabilities =
            neighbours.map { chunks.probabilities(network, parameters: parameters, neighbours: $0) }
            ?? chunks.probabilities(network, parameters: parameters, batchSize: 32)
        let classes = classNames.count
        var firstChunk = 0
        return sequences.map { sequence in
            let start = firstChunk * windowing.windowsPerChunk * classes
            firstChunk += windowing.chunkCount(samples: sequence.sampleCount)
            return Array(probabilities[start..<start + windowing.windowCount(samples: sequence.sampleCount) * classes])
        }
    }
}

/// What a model is trained on: its inputs and outputs, by name.
public struct ModelDescription: Sendable, Equatable {
    public var featureNames: [String]
    public var windowing: Windowing
    public var samplingRate: Double
    public var classNames: [String]
    public var layers: LayerSizes

    public init(
        featureNames: [String], windowing: Windowing, samplingRate: Double, classNames: [String],
        layers: LayerSizes = LayerSizes()
    ) {
        self.featureNames = featureNames
        self.windowing = windowing
        self.samplingRate = samplingRate
        self.classNames = classNames
        self.layers = layers
    }
}
