import Foundation
import GestureCore
import Testing

@testable import GestureLearning

/// Eight short sessions of two classes, three features: quick to train even in a debug build.
let smallSessions = SyntheticSessions(sessions: 8, totalSamples: 800, featureCount: 3, classCount: 2, seed: 7).make()
let smallDescription = ModelDescription(
    featureNames: ["a", "b", "c"], windowing: Windowing(window: 10),
    samplingRate: 25, classNames: ["rest", "shake"])

func trainSmallModel(epochs: Int = 2, seed: UInt64 = 1) throws -> GestureModel {
    let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: epochs, batchSize: 4, seed: seed))
    return try trainer.train(smallSessions, validation: Array(smallSessions.prefix(2))).model
}

@Suite struct TrainingTests {
    @Test func sameSeedSameModelBitForBit() throws {
        let first = try trainSmallModel(seed: 3), second = try trainSmallModel(seed: 3)
        #expect(first.parameters == second.parameters)
        #expect(try trainSmallModel(seed: 4).parameters != first.parameters)
    }

    /// Streaming prediction reads these matrices as bfloat16, so the trained model must hold exactly those values.
    @Test func trainedModelsHoldBFloat16Matrices() throws {
        let model = try trainSmallModel()
        for range in model.network.bfloat16Matrices {
            #expect(model.parameters[range].allSatisfy { $0.roundedToBFloat16 == $0 })
        }
        let output = model.network.layout.output.weight.lowerBound..<model.parameters.count
        #expect(model.parameters[output].contains { $0.roundedToBFloat16 != $0 }, "the other parameters stay Floats")
    }

    /// Smoothed targets teach a network to be no surer than the target: the windows' top
    /// probabilities stay near 1 − ε + ε/classes, where the labels alone drive them towards 1.
    /// Training then multiplies the logits by the scale that fits the labels best, which gives
    /// back sureness without changing any window's top class.
    @Test func labelSmoothingKeepsTheNetworkFromBeingSurerThanItsTargetUntilSharpened() throws {
        let tops = { (model: GestureModel) in
            let classes = model.classNames.count
            return model.predict(smallSessions).flatMap { windows in
                stride(from: 0, to: windows.count, by: classes).map { windows[$0..<$0 + classes] }
            }
        }
        let meanTop = { (model: GestureModel) in
            let windows = tops(model)
            return windows.map { Double($0.max()!) }.reduce(0, +) / Double(windows.count)
        }
        let train = { (smoothing: Float) in
            try Trainer(
                model: smallDescription, options: TrainingOptions(epochs: 40, batchSize: 4, labelSmoothing: smoothing)
            ).train(smallSessions, validation: [])
        }
        let plain = try train(0), smoothed = try train(0.4)
        #expect(plain.logitScale == nil)
        let scale = try #require(smoothed.logitScale)
        let unsharpened = smoothed.model.scalingLogits(by: 1 / scale)
        let ceiling = Double(1 - 0.4 + 0.4 / Float(smallDescription.classNames.count))
        #expect(meanTop(plain.model) > 0.9, "the labels alone make the network sure: \(meanTop(plain.model))")
        #expect(meanTop(unsharpened) < ceiling + 0.05, "\(meanTop(unsharpened)) against a target of \(ceiling)")
        #expect(scale > 1.5, "a network this sure of its training windows is sharpened: \(scale)")
        #expect(meanTop(smoothed.model) > meanTop(unsharpened) + 0.1)
        #expect(tops(smoothed.model).map(argmax) == tops(unsharpened).map(argmax))
    }

    /// Logits (1, 0) right 90 % of the time fit best as (s, 0) with softmax's first value 0.9:
    /// s = ln 9. Windows of weight 0 (padding) are left out.
    @Test func aNetworksLogitsAreScaledToFitItsLabeledWindows() {
        let first = Float(exp(1.0) / (exp(1.0) + 1))
        let labels = [Int](repeating: 0, count: 90) + [Int](repeating: 1, count: 10) + [1, 1, 1]
        let probabilities = labels.flatMap { _ in [first, 1 - first] }
        let weights = [Float](repeating: 1, count: 100) + [0, 0, 0]
        let scale = SoftmaxTemperature.fittedScale(
            probabilities: probabilities, labels: labels, weights: weights, classCount: 2)
        #expect(abs(scale - Float(log(9.0))) < 1e-3, "\(scale)")
    }

    @Test func reportsEveryEpochAndKeepsTheBest() throws {
        var reports: [EpochReport] = []
        let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: 4, batchSize: 4))
        let result = try trainer.train(smallSessions, validation: Array(smallSessions.suffix(2))) { reports.append($0) }
        #expect(reports == result.history)
        #expect(reports.map(\.epoch) == [1, 2, 3, 4])
        #expect(reports.allSatisfy { $0.validationLoss != nil && $0.seconds > 0 })
        let best = reports.min { $0.validationLoss! < $1.validationLoss! }!
        #expect(result.bestEpoch == best.epoch)
        #expect(!result.wasCancelled)
    }

    /// With weight averaging the model is the mean of the weights the last epochs ended with
    /// (each as a training that stops there keeps it), its batch norm measured again on the
    /// training windows.
    @Test func averagingKeepsTheMeanOfTheLastEpochsWeights() throws {
        let train = { (epochs: Int, averaged: Int) in
            try Trainer(
                model: smallDescription,
                options: TrainingOptions(epochs: epochs, batchSize: 4, averagedEpochs: averaged)
            )
            .train(smallSessions)
        }
        let averaged = try train(4, 3)
        #expect(averaged.averagedFrom == 2 && averaged.bestEpoch == 4)
        let lasts = try (2...4).map { try train($0, 1).model.parameters }
        let network = averaged.model.network, statistics = network.layout.batchNorm
        let mean = network.roundingToBFloat16(
            lasts[0].indices.map { index in Float(lasts.map { Double($0[index]) }.reduce(0, +) / 3) })
        let weights = mean.indices.filter {
            !statistics.runningMean.contains($0) && !statistics.runningVariance.contains($0)
        }
        #expect(weights.allSatisfy { averaged.model.parameters[$0] == mean[$0] })
        #expect(weights.contains { mean[$0] != lasts[2][$0] }, "the mean is not the last epoch's")
        #expect(try averaged.model.adaptingNormalization(to: smallSessions) == averaged.model)
        #expect(try train(4, 0).averagedFrom == nil)
    }

    @Test func cosineScheduleFallsFromTheRateToAHundredthOfIt() throws {
        let rates = (1...5).map { LearningRateSchedule.cosine.rate(1e-3, epoch: $0, of: 5) }
        #expect(rates[0] == 1e-3)
        #expect(abs(rates[2] - 0.505e-3) < 1e-9)
        #expect(abs(rates[4] - 1e-5) < 1e-9)
        #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 > $1 })
        #expect(LearningRateSchedule.constant.rate(1e-3, epoch: 5, of: 5) == 1e-3)
        // The first epoch runs at the full rate either way; later ones differ.
        let train = { (schedule: LearningRateSchedule, epochs: Int) in
            try Trainer(
                model: smallDescription, options: TrainingOptions(epochs: epochs, batchSize: 4, schedule: schedule)
            )
            .train(smallSessions).history.last!.trainingLoss
        }
        #expect(try train(.cosine, 1) == train(.constant, 1))
        #expect(try train(.cosine, 3) != train(.constant, 3))
    }

    @Test func cancellationStopsAndKeepsTheBestSoFar() throws {
        var epochs = 0
        let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: 50, batchSize: 4))
        let result = try trainer.train(
            smallSessions, validation: smallSessions, onEpoch: { _ in epochs += 1 },
            isCancelled: { epochs == 2 })
        #expect(result.wasCancelled)
        #expect(result.history.count == 2)
        #expect((1...2).contains(result.bestEpoch))
    }

    @Test func fitsAHandfulOfSessions() throws {
        let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: 80, batchSize: 4))
        let result = try trainer.overfit(Array(smallSessions.prefix(4)))
        #expect(result.fits, "accuracy \(result.accuracy) after \(result.epochs) epochs")
        #expect(result.accuracy >= 0.99)
    }

    /// Two sessions with the same features and different classes cannot both be fitted.
    @Test func cannotFitContradictions() throws {
        let features = smallSessions[0].features
        let contradiction = [
            try sequence([Int](repeating: 0, count: 100), features: features, featureCount: 3, session: 1),
            try sequence([Int](repeating: 1, count: 100), features: features, featureCount: 3, session: 2),
        ]
        let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: 5, batchSize: 4))
        let result = try trainer.overfit(contradiction)
        #expect(!result.fits)
        #expect(result.accuracy <= 0.5)
    }

    /// Windows fed one by one, the state carried past the end of a training chunk, give the
    /// offline probabilities.
    @Test func streamingEqualsOffline() throws {
        let model = try trainSmallModel()
        let long = try sequence(
            [Int](repeating: 1, count: 250), features: (0..<750).map { sin(Float($0) / 7) * 2 },
            featureCount: 3)
        let offline = model.predict([long])[0]
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        for window in 0..<25 {
            let probabilities = classifier.step(Array(long.features[window * 30..<(window + 1) * 30]), state: &state)
            for (index, probability) in probabilities.enumerated() {
                #expect(abs(probability - offline[window * 2 + index]) <= 1e-5, "window \(window)")
            }
        }
        #expect(state.hidden.contains { $0 != 0 } && state.cell.contains { $0 != 0 })
    }

    /// `predict` carries each sequence's state from chunk to chunk on its own, whichever sequences
    /// share its batches: sequences of 3, 1 and 4 chunks (and a short last one) predicted together
    /// give what each gives alone, and the state matters (a fresh start at a chunk gives other
    /// probabilities).
    @Test func predictCarriesEachSequencesStateAlone() throws {
        let model = try trainSmallModel()
        let lengths = [590, 130, 770]
        let sequences = try lengths.enumerated().map { index, samples in
            try sequence(
                [Int](repeating: 1, count: samples),
                features: (0..<samples * 3).map { sin(Float($0 + 100 * index) / 7) * 2 }, featureCount: 3,
                session: index)
        }
        let together = model.predict(sequences)
        for (sequence, predicted) in zip(sequences, together) {
            #expect(predicted == model.predict([sequence])[0])
        }
        let chunkSamples = model.windowing.window * model.windowing.windowsPerChunk
        let second = try sequence(
            [Int](repeating: 1, count: 770 - chunkSamples),
            features: Array(sequences[2].features[(chunkSamples * 3)...]), featureCount: 3)
        let afresh = model.predict([second])[0], carried = Array(together[2][(model.windowing.windowsPerChunk * 2)...])
        #expect(afresh.count == carried.count && afresh != carried)
    }

    @Test func theRejectionsEmbeddingsAreTheStatesTheStreamCarries() throws {
        let model = try trainSmallModel()
        let samples = 770, window = model.windowing.window, units = model.architecture.lstmUnits
        let long = try sequence(
            [Int](repeating: 1, count: samples), features: (0..<samples * 3).map { sin(Float($0) / 7) * 2 },
            featureCount: 3)
        #expect(samples / window > 2 * model.windowing.windowsPerChunk, "the states must pass two chunks")
        let embedded = model.embeddings(of: [long], .lstm, classCount: model.classNames.count).embeddings
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        for index in 0..<samples / window {
            _ = classifier.step(Array(long.features[index * window * 3..<(index + 1) * window * 3]), state: &state)
            let row = embedded[index * units..<(index + 1) * units]
            #expect(zip(row, state.hidden).allSatisfy { abs($0 - $1) < 1e-5 }, "window \(index)")
        }
    }

    @Test func rejectsInputItCannotUse() throws {
        let trainer = Trainer(model: smallDescription, options: TrainingOptions(epochs: 1))
        var withNaN = smallSessions[1]
        withNaN.features[7] = .nan
        #expect(throws: TrainingError.self) { try trainer.train([smallSessions[0], withNaN]) }
        do {
            _ = try trainer.train([smallSessions[0], withNaN])
        } catch {
            #expect(error.description.contains(withNaN.session.rawValue) && error.description.contains("b"))
        }
        let onlyRest = smallSessions.filter { $0.labels[0] == 0 }
        #expect(
            throws: TrainingError(
                description: "no training window is labeled shake; record more of it, or drop the class")
        ) {
            try trainer.train(onlyRest)
        }
        let twoFeatures = try sequence([0, 1], features: [1, 2, 3, 4], featureCount: 2)
        #expect(throws: TrainingError.self) { try trainer.train([twoFeatures]) }
        #expect(throws: TrainingError.self) {
            try trainer.train(smallSessions, validation: [sequence([0, 2, 1], featureCount: 3)])
        }
    }
}

@Suite struct TrainingThreadsTests {
    /// A model of the book's size, whose products and LSTM steps are large enough to be shared.
    @Test func theModelIsTheSameWhateverTheThreads() throws {
        let sessions = SyntheticSessions(sessions: 6, totalSamples: 2400, featureCount: 6, classCount: 3, seed: 9)
            .make()
        let description = ModelDescription(
            featureNames: (1...6).map { "f\($0)" }, windowing: Windowing(window: 20), samplingRate: 25,
            classNames: ["a", "b", "c"])
        let models = try [1, 2, 3].map { threads in
            try Trainer(
                model: description, options: TrainingOptions(epochs: 2, batchSize: 8, seed: 5, threads: threads)
            ).train(sessions).model
        }
        if PackedFactor.chosenKernel != nil {
            #expect(models[1] == models[0])
            #expect(models[2] == models[0])
        } else {
            // OpenBLAS sums a product's shares in another order than the whole: rounding differs.
            for model in models.dropFirst() {
                let difference = zip(model.parameters, models[0].parameters).map { abs($0 - $1) }.max()!
                #expect(difference < 1e-3)
            }
        }
    }
}
