import GestureCore
import Testing

@testable import GestureLearning

/// A base model that knows two classes, and a person whose sessions have those and a third: the
/// synthetic classes' amplitudes depend on the class count, so the person's two old classes also
/// look a little different from the base model's training data.
/// Trained once, when a test first needs it (Swift's globals start lazily, once).
private let baseModel = try! trainSmallModel(epochs: 12)
private let person = SyntheticSessions(sessions: 18, totalSamples: 2700, featureCount: 3, classCount: 3, seed: 11)
    .make().map { sequence in
        var copy = sequence
        copy.user = try! UserID("pat")
        return copy
    }
/// Two sessions of each class to learn from, the rest to test on.
private let personal = Array(person.prefix(6)), personTest = Array(person.dropFirst(6))
private let classNames = ["rest", "shake", "wave"]
private let pat = try! UserID("pat")

private func personalizer() throws -> Personalizer {
    Personalizer(base: baseModel, baseName: "base.model", classNames: classNames)
}

private func recall(of label: Int, _ model: GestureModel, on sequences: [LabeledSequence]) -> Double {
    Evaluation(model: model, sequences: sequences).classes[label].recall
}

@Suite struct PersonalizerTests {
    @Test func nearestNeighboursLearnANewClassFromAFewSessions() throws {
        let model = try personalizer().nearestNeighbours(personal, user: pat)
        #expect(model.classNames == classNames)
        #expect(model.architecture.classes == 2, "the network is the base model's")
        #expect(recall(of: 2, model, on: personTest) >= 0.9)
        #expect(Evaluation(model: model, sequences: personTest).accuracy >= 0.9)
        let record = try #require(model.personalization)
        #expect(record.method == .knn && record.user == pat && record.baseModel == "base.model")
        #expect(record.takes == ["shake": 2, "wave": 2], "rest-only sessions are no gesture's takes")
        #expect(record.sessions == personal.map(\.session).sorted())
    }

    @Test func fineTuningGrowsTheOutputForANewClassAndKeepsTheEarlierLayers() throws {
        let result = try personalizer().finetune(
            personal, validation: [], user: pat, layers: .dense, options: TrainingOptions(epochs: 15, batchSize: 4))
        let model = result.model
        #expect(model.architecture.classes == 3 && model.classNames == classNames)
        let dense = baseModel.network.layout.dense.weight.lowerBound
        #expect(model.parameters[..<dense] == baseModel.parameters[..<dense])
        #expect(model.parameters[dense...] != baseModel.parameters[dense...])
        #expect(recall(of: 2, model, on: personTest) >= 0.8)
        #expect(model.personalization?.method == .finetune)
    }

    /// Random convolutions fitted again on the base model's training windows and a few of the
    /// person's, counted many times, learn the person's new gesture beside the fine-tuned network.
    @Test func randomConvolutionsFittedAgainLearnTheNewGesture() throws {
        let options = TrainingOptions(
            epochs: 12, batchSize: 4, randomConvolutions: .init(history: 30, outputCount: 300))
        let base = try Trainer(model: smallDescription, options: options).train(smallSessions).model
        let personalizer = Personalizer(base: base, baseName: "both.model", classNames: classNames)
        let tuned = try personalizer.finetune(
            personal, validation: [], user: pat, layers: .dense, options: TrainingOptions(epochs: 15, batchSize: 4)
        ).model
        let model = try personalizer.withRandomConvolutions(tuned, others: smallSessions, personal: personal, seed: 1)
        let convolutions = try #require(model.randomConvolutions)
        #expect(convolutions.classNames == classNames)
        #expect(Evaluation(classifier: convolutions, sequences: personTest).classes[2].recall >= 0.8)
        #expect(recall(of: 2, model, on: personTest) >= 0.8)
        #expect(model.parameters == tuned.parameters && model.personalization == tuned.personalization)
    }

    @Test func fineTuningTheLSTMChangesItAndNotTheConvolution() throws {
        let model = try personalizer().finetune(
            personal, validation: [], user: pat, layers: .lstm, options: TrainingOptions(epochs: 2, batchSize: 4)
        ).model
        let lstm = baseModel.network.layout.lstm, start = lstm.input.lowerBound
        #expect(model.parameters[..<start] == baseModel.parameters[..<start])
        #expect(model.parameters[start..<lstm.bias.upperBound] != baseModel.parameters[start..<lstm.bias.upperBound])
    }

    @Test func fineTuningNeedsWindowsOfEveryClass() throws {
        let withoutWave = personal.filter { !$0.labels.contains(2) }
        #expect(throws: TrainingError.self) {
            try personalizer().finetune(
                withoutWave, validation: [], user: pat, layers: .dense, options: TrainingOptions(epochs: 1))
        }
    }

    @Test func aClassWithoutWindowsKeepsTheNetworksProbability() throws {
        let onlyRest = personal.filter { $0.labels.allSatisfy { $0 == 0 } }
        let model = try personalizer().nearestNeighbours(onlyRest, user: pat)
        // The base model's windows need labels of its own classes; predictions do not read them.
        let relabeled = personTest.map { sequence in
            var copy = sequence
            copy.labels = copy.labels.map { min($0, 1) }
            return copy
        }
        let personalised = model.predict(personTest), original = baseModel.predict(relabeled)
        for (mine, theirs) in zip(personalised, original) {
            for window in 0..<mine.count / 3 {
                let shake = theirs[window * 2 + 1]
                #expect(abs(mine[window * 3 + 1] - shake) < 1e-6)
                #expect(abs(mine[window * 3] - (1 - shake)) < 1e-5, "rest has what the network leaves")
                #expect(mine[window * 3 + 2] == 0, "nobody showed a wave")
            }
        }
    }

    @Test func nearestNeighboursAreDeterministicAndReducedToTheCap() throws {
        let first = try personalizer().nearestNeighbours(personal, user: pat, prototypesPerClass: 4)
        let second = try personalizer().nearestNeighbours(personal, user: pat, prototypesPerClass: 4)
        #expect(first == second)
        let neighbours = try #require(first.neighbours)
        #expect(classNames.indices.allSatisfy { label in neighbours.labels.filter { $0 == label }.count == 4 })
        #expect(first.predict(personTest) == second.predict(personTest))
    }

    @Test(arguments: Embedding.allCases)
    func streamingAPersonalisedModelGivesItsOfflineProbabilities(embedding: Embedding) throws {
        let model = try personalizer().nearestNeighbours(personal, user: pat, embedding: embedding)
        let sequence = personTest[0]
        let offline = model.predict([sequence])[0]
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        let size = model.architecture.windowSize
        for window in 0..<offline.count / 3 {
            var values = Array(sequence.features[(window * size)..<min((window + 1) * size, sequence.features.count)])
            values += repeatElement(0, count: size - values.count)
            let streamed = classifier.step(values, state: &state)
            for label in 0..<3 { #expect(abs(streamed[label] - offline[window * 3 + label]) < 1e-4) }
        }
    }

    @Test(arguments: [Personalization.Method.knn, .finetune])
    func aPersonalisedModelRoundTripsThroughItsFile(method: Personalization.Method) throws {
        let model =
            method == .knn
            ? try personalizer().nearestNeighbours(personal, user: pat, embedding: .lstm, k: 3)
            : try personalizer().finetune(
                personal, validation: [], user: pat, layers: .dense, options: TrainingOptions(epochs: 1)
            ).model
        let read = try GestureModel(serialized: model.serialized())
        #expect(read == model)
        #expect(read.predict(personTest) == model.predict(personTest))
    }

    @Test func aDamagedNeighbourListIsRefused() throws {
        let model = try personalizer().nearestNeighbours(personal, user: pat)
        var damaged = model
        damaged.classNames = ["rest", "shake"]
        #expect(throws: ModelFileError.self) { try GestureModel(serialized: damaged.serialized()) }
    }
}
