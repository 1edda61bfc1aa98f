import GestureCore

/// The layers fine-tuning trains; the ones before them keep the base model's weights.
public enum TunedLayers: String, Sendable, CaseIterable {
    /// The dense layer, batch norm and the output.
    case dense
    /// The LSTM and the layers after it.
    case lstm
    /// Every layer, the convolution too.
    case all

    func frozenParameters(_ layout: ParameterLayout) -> Int {
        switch self {
        case .dense: layout.dense.weight.lowerBound
        case .lstm: layout.lstm.input.lowerBound
        case .all: 0
        }
    }
}

/// Makes a model trained on many people one person's, from that person's sessions: by k nearest
/// neighbours on the network's embeddings of their windows, or by training the last layers again.
/// Either can learn classes the base model never had. The base model's random convolutions are left
/// out of those two, knowing nothing of the person, unless fitted again with the person's windows
/// (`withRandomConvolutions`); adapting without labels keeps them, their statistics the person's.
public struct Personalizer: Sendable {
    /// The base model's network.
    public let base: GestureModel
    /// The base model's random convolutions, which read no label: `adaptingNormalization` keeps them.
    private let baseRandomConvolutions: RandomConvolutionClassifier?
    /// The base model's file name, for the personalised model's record.
    public let baseName: String
    /// The base model's classes, then the new ones; the sessions' labels index into them.
    public let classNames: [String]

    public init(base: GestureModel, baseName: String, classNames: [String]) {
        precondition(classNames.starts(with: base.classNames), "the base model's classes come first")
        self.base = base.networkAlone
        baseRandomConvolutions = base.randomConvolutions
        self.baseName = baseName
        self.classNames = classNames
    }

    /// How the base model's random convolutions were made; nil when it has none.
    public var randomConvolutionSettings: RandomConvolutionClassifier.Settings? {
        baseRandomConvolutions.map {
            RandomConvolutionClassifier.Settings(
                history: $0.convolutions.history, outputCount: $0.convolutions.outputCount)
        }
    }

    /// What the personalised model reads and predicts.
    var description: ModelDescription {
        ModelDescription(
            featureNames: base.featureNames, windowing: base.windowing, samplingRate: base.samplingRate,
            classNames: classNames, layers: base.architecture.layers)
    }

    /// The base network with a k-NN classifier on `user`'s windows in `sessions`.
    public func nearestNeighbours(
        _ sessions: [LabeledSequence], user: UserID, embedding: Embedding = .dense, k: Int = 5,
        prototypesPerClass: Int = 64
    ) throws(TrainingError) -> GestureModel {
        try Trainer(model: description, options: TrainingOptions()).checkSessions(sessions, validation: [])
        let windows = embeddings(of: sessions, embedding)
        var model = base
        model.classNames = classNames
        model.neighbours = NearestNeighbours(
            embedding: embedding, k: k, prototypesPerClass: prototypesPerClass,
            dimension: embedding.width(base.architecture), embeddings: windows.embeddings, labels: windows.labels,
            classes: classNames.count)
        model.personalization = record(.knn, user: user, sessions: sessions)
        return model
    }

    /// The base model with `layers` trained on `user`'s windows in `training` for `options`'
    /// epochs, the one with the lowest loss on `validation` (on `training` without it) kept; an
    /// output for each new class is added, starting from the mean of that class's embeddings.
    public func finetune(
        _ training: [LabeledSequence], validation: [LabeledSequence], user: UserID, layers: TunedLayers,
        options: TrainingOptions, onEpoch: (EpochReport) -> Void = { _ in }, isCancelled: () -> Bool = { false }
    ) throws(TrainingError) -> TrainingResult {
        guard base.neighbours == nil else {
            throw TrainingError(
                description: "\(baseName) is personalised by k nearest neighbours; fine-tune the model it was made from"
            )
        }
        let trainer = Trainer(model: description, options: options)
        try trainer.check(training, validation: validation)
        var start = grown(imprintingFrom: training)
        start.personalization = record(.finetune, user: user, sessions: training + validation)
        // Tuning moves the embeddings away from the prototypes the rejection measured.
        start.rejection = nil
        var run = TrainingRun(
            start: start, frozen: layers.frozenParameters(start.network.layout), options: options,
            training: training, validation: validation)
        return trainer.epochs(of: &run, onEpoch: onEpoch, isCancelled: isCancelled)
    }

    /// `model`, made by this personalizer, beside random convolutions made as the base model's were
    /// and fitted on `others` (the base model's training sessions) and the person's windows in
    /// `personal`, counted `repeats` times: a few of the person's windows then move the ridge as
    /// far as many of the others'. `model` itself when the base model had none.
    public func withRandomConvolutions(
        _ model: GestureModel, others: [LabeledSequence], personal: [LabeledSequence], repeats: Int = 20,
        seed: UInt64
    ) throws(TrainingError) -> GestureModel {
        precondition(model.classNames == classNames)
        guard let randomConvolutionSettings else { return model }
        let trainer = Trainer(model: description, options: TrainingOptions(seed: seed))
        var personalised = model
        personalised.randomConvolutions = try trainer.randomConvolutions(
            others + (0..<repeats).flatMap { _ in personal }, settings: randomConvolutionSettings)
        return personalised
    }

    /// The base model with batch norm's statistics re-estimated on `user`'s windows in `sessions`,
    /// their labels ignored, and the random convolutions' statistics with them (see
    /// `GestureModel.adaptingNormalization`); its classes, rejection and random convolutions stay.
    /// With `selfTraining`, the layers after the LSTM are then trained on the windows the adapted
    /// model is confident of, and the statistics re-estimated again. With `balancingClasses`, the
    /// classes' logits are then shifted so that over the sessions it predicts each class as often
    /// as the training windows held it (`GestureModel.balancingClasses(over:)`).
    public func adaptingNormalization(
        _ sessions: [LabeledSequence], user: UserID, weight: Float = 1, selfTraining: SelfTraining? = nil,
        balancingClasses: Bool = false
    ) throws(TrainingError) -> GestureModel {
        var model = base
        model.randomConvolutions = baseRandomConvolutions
        model = try model.adaptingNormalization(to: sessions, weight: weight)
        if let selfTraining {
            model = try selfTrained(model, on: sessions, selfTraining).adaptingNormalization(
                to: sessions, weight: weight)
        }
        var personalization = record(.unlabeled, user: user, sessions: sessions)
        if balancingClasses {
            let balanced = try model.balancingClasses(over: sessions)
            model = balanced.model
            personalization.classShifts = balanced.balance.logitShifts
        }
        model.personalization = personalization
        return model
    }

    /// `model` with the layers after the LSTM trained on its confident windows of `sessions`
    /// (itself when it has none), its rejection kept: the LSTM's output it measures is unchanged.
    private func selfTrained(
        _ model: GestureModel, on sessions: [LabeledSequence], _ selfTraining: SelfTraining
    ) throws(TrainingError) -> GestureModel {
        let confident = model.confidentWindows(in: sessions, confidence: selfTraining.confidence)
        guard !confident.isEmpty else { return model }
        let trainer = Trainer(model: description, options: selfTraining.options)
        try trainer.checkSessions(confident, validation: [])
        var run = TrainingRun(
            start: model, frozen: TunedLayers.dense.frozenParameters(model.network.layout),
            options: selfTraining.options, training: confident, validation: [])
        return trainer.epochs(of: &run, onEpoch: { _ in }, isCancelled: { false }).model
    }

    private func record(
        _ method: Personalization.Method, user: UserID, sessions: [LabeledSequence]
    )
        -> Personalization
    {
        Personalization(
            method: method, user: user, baseModel: baseName, baseClassNames: base.classNames, sessions: sessions,
            classNames: classNames)
    }

    /// Every real window's embedding (`count × width`) and class.
    func embeddings(of sessions: [LabeledSequence], _ embedding: Embedding) -> (embeddings: [Float], labels: [Int]) {
        let windows = base.embeddings(of: sessions, embedding, classCount: classNames.count)
        return (windows.embeddings, windows.labels)
    }

    /// The base model with an output for each new class: its weights the mean of the class's
    /// dense embeddings in `sessions`, as long as the others' on average; its bias theirs on average.
    func grown(imprintingFrom sessions: [LabeledSequence]) -> GestureModel {
        let network = base.network, output = network.output, ranges = network.layout.output
        let added = classNames.count - output.outputs
        guard added > 0 else { return base }
        let weight = Array(base.parameters[ranges.weight]), bias = base.parameters[ranges.bias]
        let columnLength =
            (0..<output.outputs).map { column in
                stride(from: column, to: weight.count, by: output.outputs).reduce(Float(0)) {
                    $0 + weight[$1] * weight[$1]
                }.squareRoot()
            }.reduce(0, +) / Float(output.outputs)
        let windows = embeddings(of: sessions, .dense)
        let newColumns = (output.outputs..<classNames.count).map { label in
            var sum = [Float](repeating: 0, count: output.inputs)
            for (row, windowLabel) in windows.labels.enumerated() where windowLabel == label {
                for index in sum.indices { sum[index] += windows.embeddings[row * output.inputs + index] }
            }
            return unitLength(sum).map { $0 * columnLength }
        }
        var grownWeight: [Float] = []
        for input in 0..<output.inputs {
            grownWeight += weight[input * output.outputs..<(input + 1) * output.outputs]
            grownWeight += newColumns.map { $0[input] }
        }
        let meanBias = bias.reduce(0, +) / Float(bias.count)
        var architecture = base.architecture
        architecture.classes = classNames.count
        return GestureModel(
            featureNames: base.featureNames, windowing: base.windowing, samplingRate: base.samplingRate,
            classNames: classNames, normalization: base.normalization, architecture: architecture,
            parameters: base.parameters[..<ranges.weight.lowerBound] + grownWeight + bias
                + repeatElement(meanBias, count: added) + base.parameters[ranges.bias.upperBound...],
            trainingRecord: base.trainingRecord)
    }
}
