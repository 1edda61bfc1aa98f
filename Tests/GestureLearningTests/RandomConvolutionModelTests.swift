import Foundation
import GestureCore
import Testing

@testable import GestureLearning

/// `trainSmallModel`'s network with random convolutions trained beside it.
private func trainSmallModelWithRandomConvolutions() throws -> GestureModel {
    let options = TrainingOptions(
        epochs: 2, batchSize: 4, seed: 1, randomConvolutions: .init(history: 30, outputCount: 300))
    return try Trainer(model: smallDescription, options: options).train(
        smallSessions, validation: Array(smallSessions.prefix(2))
    ).model
}

@Suite struct RandomConvolutionModelTests {
    @Test func eachWindowsProbabilitiesAreTheMeanOfTheNetworksAndTheConvolutionsScores() throws {
        let model = try trainSmallModelWithRandomConvolutions()
        let convolutions = try #require(model.randomConvolutions)
        let network = model.networkAlone
        #expect(network.randomConvolutions == nil)
        #expect(network.parameters == (try trainSmallModel()).parameters, "the network trains as it does alone")
        let scores = convolutions.scores(smallSessions)
        for (both, (alone, scores)) in zip(model.predict(smallSessions), zip(network.predict(smallSessions), scores)) {
            #expect(both == zip(alone, scores).map { ($0 + $1) / 2 })
            #expect(both != alone)
        }
    }

    /// Batch norm's adaptation re-estimates the random convolutions' statistics too: a person who
    /// moves 1.6 times as hard as the training people is scored as they were, the ridge untouched.
    @Test func adaptingStandardizesTheRandomConvolutionsInputsAndFeaturesOnThePerson() throws {
        let model = try trainSmallModelWithRandomConvolutions()
        let trained = try #require(model.randomConvolutions)
        let stronger = smallSessions.map { sequence in
            var copy = sequence
            copy.features = sequence.features.map { $0 * 1.6 }
            return copy
        }
        let adapted = try #require(try model.adaptingNormalization(to: stronger).randomConvolutions)
        #expect(adapted.normalization == FeatureNormalization(fitting: stronger))
        #expect(adapted.ridge.weights == trained.ridge.weights && adapted.ridge.intercept == trained.ridge.intercept)
        for (after, before) in zip(adapted.scores(stronger), trained.scores(smallSessions)) {
            #expect(zip(after, before).allSatisfy { abs($0 - $1) < 1e-3 })
        }
        let unadapted = trained.scores(stronger)
        #expect(zip(unadapted, trained.scores(smallSessions)).contains { zip($0, $1).contains { abs($0 - $1) > 0.05 } })
        #expect(try model.adaptingNormalization(to: stronger, weight: 0).randomConvolutions == trained)
    }

    /// At a rate where 4 s are fewer samples than one kernel spans: an error, not a crash.
    @Test func aHistoryShorterThanAKernelIsAnError() throws {
        let options = TrainingOptions(epochs: 1, batchSize: 4, randomConvolutions: .init(history: 8))
        #expect(
            throws: TrainingError(
                description:
                    "random convolutions look back at least 9 samples, not 8; at this rate train with --classifier network"
            )
        ) { try Trainer(model: smallDescription, options: options).train(smallSessions) }
    }

    @Test func theModelFileKeepsThemBitForBit() throws {
        let model = try trainSmallModelWithRandomConvolutions()
        let loaded = try GestureModel(serialized: model.serialized())
        #expect(loaded == model)
        #expect(loaded.predict(smallSessions) == model.predict(smallSessions))
        #expect(try GestureModel(serialized: model.networkAlone.serialized()) == model.networkAlone)
    }

    /// A model file from before the ridge's scores were calibrated has no temperature: it loads
    /// and averages the regression's own scores, as it did.
    @Test func aRidgeFromBeforeCalibrationKeepsTheRegressionsScores() throws {
        var model = try trainSmallModelWithRandomConvolutions()
        let calibrated = try #require(model.randomConvolutions).scores(smallSessions).joined()
        #expect(calibrated.allSatisfy { (0...1).contains($0) })
        model.randomConvolutions?.ridge.inverseTemperature = nil
        let loaded = try GestureModel(serialized: model.serialized())
        #expect(loaded == model)
        let raw = try #require(loaded.randomConvolutions).scores(smallSessions).joined()
        #expect(raw.contains { !(0...1).contains($0) }, "a regression's scores are not bounded")
        #expect(Array(raw) != Array(calibrated))
    }

    @Test func aKernelLongerThanTheHistoryIsAClearError() throws {
        var model = try trainSmallModelWithRandomConvolutions()
        let classifier = try #require(model.randomConvolutions)
        model.randomConvolutions = RandomConvolutionClassifier(
            classNames: classifier.classNames, windowing: classifier.windowing, normalization: classifier.normalization,
            convolutions: RandomConvolutions(
                history: 12, channelCount: 3, kernels: classifier.convolutions.kernels),
            ridge: classifier.ridge)
        #expect(
            throws: ModelFileError(
                description:
                    "the model file is inconsistent: \(classifier.convolutions.kernels.count) random convolutions over 12 samples of 3 features"
            )
        ) { try GestureModel(serialized: model.serialized()) }
    }

    /// The LSTM's state and the convolutions' past carry on through the stream, past the end of a
    /// training chunk, as `predict` reads the whole sequence. Beside nearest neighbours too.
    @Test(arguments: [false, true])
    func streamingEqualsOffline(besideNearestNeighbours: Bool) throws {
        let trained = try trainSmallModelWithRandomConvolutions()
        let model = besideNearestNeighbours ? try personalisedByNearestNeighbours(trained) : trained
        #expect(model.randomConvolutions != nil && (model.neighbours != nil) == besideNearestNeighbours)
        let long = try sequence(
            [Int](repeating: 1, count: 250), features: (0..<750).map { sin(Float($0) / 7) * 2 }, featureCount: 3)
        let offline = model.predict([long])[0]
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        for window in 0..<25 {
            let probabilities = classifier.step(Array(long.features[window * 30..<(window + 1) * 30]), state: &state)
            for (index, probability) in probabilities.enumerated() {
                #expect(abs(probability - offline[window * 2 + index]) <= 1e-5, "window \(window)")
            }
        }
        #expect(state.recentSamples == Array(long.features.suffix(30 * 3)), "the last 30 samples, as read")
    }

    /// A stream that takes up a model adapted to the person on the way (as `detect --adapt` does)
    /// gives the adapted model's probabilities from there on: the LSTM comes before batch norm, and
    /// the convolutions' past is kept as read, for the adapted normalization to apply.
    @Test func aStreamTakesUpAnAdaptedModelAsIfItHadRunFromTheStart() throws {
        let trained = try trainSmallModelWithRandomConvolutions()
        let long = try sequence(
            [Int](repeating: 1, count: 250), features: (0..<750).map { sin(Float($0) / 7) * 3 }, featureCount: 3)
        let adapted = try trained.adaptingNormalization(to: [long])
        #expect(adapted.randomConvolutions?.normalization != trained.randomConvolutions?.normalization)
        let offline = adapted.predict([long])[0]
        var state = StreamingClassifier(model: trained).initialState
        for window in 0..<25 {
            let classifier = StreamingClassifier(model: window < 12 ? trained : adapted)
            let probabilities = classifier.step(Array(long.features[window * 30..<(window + 1) * 30]), state: &state)
            guard window >= 12 else { continue }
            for (index, probability) in probabilities.enumerated() {
                #expect(abs(probability - offline[window * 2 + index]) <= 1e-5, "window \(window)")
            }
        }
    }

    /// `model` personalised for the first session's user by k nearest neighbours, with random
    /// convolutions fitted again on the other sessions and that user's.
    private func personalisedByNearestNeighbours(_ model: GestureModel) throws -> GestureModel {
        let personalizer = Personalizer(base: model, baseName: "both.gesturemodel", classNames: model.classNames)
        let user = smallSessions[0].user
        let person = smallSessions.filter { $0.user == user }
        return try personalizer.withRandomConvolutions(
            personalizer.nearestNeighbours(person, user: user), others: smallSessions.filter { $0.user != user },
            personal: person, seed: 1)
    }

    /// Personalising by labels leaves the base model's random convolutions out, which know nothing
    /// of the person, unless they are fitted again with the person's windows; adapting without
    /// labels keeps them as they are.
    @Test func personalisedModelsHaveRandomConvolutionsFittedAgainOrUnchangedWithoutLabels() throws {
        let model = try trainSmallModelWithRandomConvolutions()
        let personalizer = Personalizer(base: model, baseName: "both.gesturemodel", classNames: model.classNames)
        #expect(personalizer.base == model.networkAlone)
        let made = try #require(model.randomConvolutions).convolutions
        #expect(personalizer.randomConvolutionSettings == .init(history: 30, outputCount: made.outputCount))
        let user = smallSessions[0].user
        let personal = try personalizer.nearestNeighbours(smallSessions.filter { $0.user == user }, user: user)
        #expect(personal.randomConvolutions == nil && personal.neighbours != nil)
        let fitted = try #require(try personalisedByNearestNeighbours(model).randomConvolutions)
        #expect(fitted.classNames == model.classNames && fitted.convolutions.history == 30)
        #expect(fitted.convolutions.outputCount == made.outputCount, "as many features as the base model's")
        #expect(fitted.ridge != model.randomConvolutions?.ridge)
        let adapted = try personalizer.adaptingNormalization(smallSessions.filter { $0.user == user }, user: user)
        let adaptedConvolutions = try #require(adapted.randomConvolutions)
        let trainedConvolutions = try #require(model.randomConvolutions)
        #expect(adaptedConvolutions.convolutions == trainedConvolutions.convolutions)
        #expect(adaptedConvolutions.ridge.weights == trainedConvolutions.ridge.weights)
        #expect(
            adaptedConvolutions.normalization
                == FeatureNormalization(fitting: smallSessions.filter { $0.user == user }))
        let networkOnly = Personalizer(
            base: model.networkAlone, baseName: "network.gesturemodel", classNames: model.classNames)
        #expect(
            try networkOnly.withRandomConvolutions(personal, others: smallSessions, personal: [], seed: 1) == personal)
    }

    /// Balancing shifts the ridge's logits with the network's: the two's averaged probabilities
    /// then have the training windows' class shares over the sessions it was balanced on.
    @Test func balancingShiftsTheRidgeWithTheNetwork() throws {
        let model = try trainSmallModelWithRandomConvolutions()
        let skewed = smallSessions.filter { $0.labels.count { $0 == 1 } * 2 > $0.labels.count } + smallSessions
        let (balanced, balance) = try model.balancingClasses(over: skewed)
        let shares = try #require(model.trainingRecord?.classShares)
        let means = meanProbabilities(balanced.predict(skewed), classCount: 2)
        for (mean, share) in zip(means, shares) { #expect(abs(mean - share) < 0.01, "\(means) \(shares)") }
        let ridge = try #require(model.randomConvolutions?.ridge),
            shifted = try #require(balanced.randomConvolutions?.ridge)
        let scale = try #require(ridge.inverseTemperature)
        for (index, shift) in balance.logitShifts.enumerated() {
            #expect(abs(shifted.intercept[index] - ridge.intercept[index] - Float(shift) / scale) < 1e-6)
        }
        #expect(shifted.weights == ridge.weights)
    }
}
