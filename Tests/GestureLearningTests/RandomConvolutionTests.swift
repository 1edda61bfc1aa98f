import GestureCore
import GestureMotion
import Glibc
import Testing

@testable import GestureLearning

private let sessions = SyntheticSessions(
    sessions: 12, totalSamples: 4_800, featureCount: 3, classCount: 3, seed: 11
).make()

@Suite struct RandomConvolutionTests {
    private let convolutions = RandomConvolutions(
        fitting: sessions.map(\.features), channelCount: 3, history: 60, outputCount: 500, seed: 5)

    @Test func dilationsSpreadExponentiallyUntilAKernelSpansTheHistory() {
        #expect(RandomConvolutions.dilations(history: 200) == [1, 2, 4, 11, 24])
        #expect(RandomConvolutions.dilations(history: 9) == [1])
        #expect(RandomConvolutions.dilations(history: 16) == [1])
        #expect(RandomConvolutions.dilations(history: 20) == [1, 2])
        let dilations = RandomConvolutions.dilations(history: 60)
        #expect(dilations.first == 1 && 8 * dilations.last! + 1 <= 60 && dilations == dilations.sorted())
        #expect(convolutions.kernels.count == 84 * dilations.count)
        #expect(convolutions.outputCount == convolutions.kernels.count * (500 / (84 * dilations.count)))
    }

    /// Each feature counted directly: the share of the kernel's outputs within the window's last
    /// `history` samples above the bias.
    @Test func aWindowsFeatureIsTheShareOfItsHistorysOutputsAboveTheBias() {
        let sequence = Array(sessions[4].features.dropLast(3 * 3)), window = 10
        let features = convolutions.windowFeatures(of: sequence, window: window)
        let samples = sequence.count / 3, windowCount = (samples + window - 1) / window
        #expect(samples % window != 0, "the last window is a partial one")
        #expect(features.count == windowCount * convolutions.outputCount)
        for windowIndex in [0, 3, 7, windowCount - 2, windowCount - 1] {
            let end = min((windowIndex + 1) * window, samples), start = max(0, end - convolutions.history)
            var column = 0
            for kernel in convolutions.kernels {
                let outputs = kernel.outputs(of: sequence[start * 3..<end * 3], channelCount: 3)
                for bias in kernel.biases {
                    let share = outputs.isEmpty ? 0 : Float(outputs.count { $0 > bias }) / Float(outputs.count)
                    #expect(abs(features[windowIndex * convolutions.outputCount + column] - share) < 1e-6)
                    column += 1
                }
            }
        }
        #expect(features.allSatisfy { $0 >= 0 && $0 <= 1 } && Set(features).count > 10)
    }

    /// Each output written out: three times the heavy taps less all nine, over the kernel's channels summed.
    @Test func aKernelsOutputIsThreeTimesItsHeavyTapsLessAllNine() {
        let sequence = sessions[3].features, samples = sequence.count / 3
        for kernel in convolutions.kernels.filter({ $0.channels.count > 1 }).prefix(40) {
            let outputs = kernel.outputs(of: sequence[...], channelCount: 3)
            #expect(outputs.count == samples - kernel.span + 1)
            let summed = { (sample: Int) in kernel.channels.reduce(Float(0)) { $0 + sequence[sample * 3 + $1] } }
            for position in [0, 1, outputs.count / 2, outputs.count - 1] {
                let taps = (0..<9).map { summed(position + $0 * kernel.dilation) }
                let expected = 3 * kernel.heavyTaps.reduce(Float(0)) { $0 + taps[$1] } - taps.reduce(0, +)
                #expect(abs(outputs[position] - expected) <= 1e-4 * (1 + abs(expected)), "\(kernel.heavyTaps)")
            }
        }
    }

    @Test func aWindowSeesNothingAfterItsEndNorBeforeItsHistory() {
        let original = sessions[2].features, window = 10, windowIndex = 12
        let end = (windowIndex + 1) * window, start = end - convolutions.history
        let features = { (sequence: [Float]) in
            Array(
                convolutions.windowFeatures(of: sequence, window: window)[
                    windowIndex * convolutions.outputCount..<(windowIndex + 1) * convolutions.outputCount])
        }
        var outside = original
        for index in 0..<start * 3 { outside[index] = 9 }
        for index in end * 3..<original.count { outside[index] = -9 }
        #expect(features(outside) == features(original))
        var inside = original
        for index in (end - 5) * 3..<end * 3 { inside[index] = 9 }
        #expect(features(inside) != features(original))
    }

    @Test func theRidgeClassifierSeparatesWhatIsSeparableAndAHugePenaltyLeavesThePrior() throws {
        var random = Xoshiro256(seed: 3)
        let labels = (0..<300).map { $0 % 3 == 0 ? 0 : ($0 % 3 == 1 ? 1 : 2) } + [2, 2]
        let features = labels.flatMap { label in
            (0..<4).map { feature in (feature == label ? 2 : 0) + random.unitFloat() - 0.5 }
        }
        let argmaxes = { (ridge: RidgeClassifier) in
            let scores = ridge.scores(of: features)
            return stride(from: 0, to: scores.count, by: 3).map { argmax(scores[$0..<$0 + 3]) }
        }
        let fitted = try RidgeClassifier(
            features: features, featureCount: 4, labels: labels, groups: labels.indices.map { $0 % 2 }, classCount: 3,
            penalty: 1e-3)
        #expect(argmaxes(fitted) == labels)
        let flat = try RidgeClassifier(
            features: features, featureCount: 4, labels: labels, groups: labels.indices.map { $0 % 2 }, classCount: 3,
            penalty: 1e6)
        #expect(argmaxes(flat).allSatisfy { $0 == 2 }, "class 2 has two more examples")
    }

    @Test func theRidgesProbabilitiesAreAsSureAsItIsRightOnAPersonItWasNotFittedOn() throws {
        // Person 0's classes lie apart; person 1's lie on other features, so a fit on either is
        // often wrong on the other, which a fit on both never sees.
        var random = Xoshiro256(seed: 4)
        let labels = (0..<400).map { $0 % 2 }
        let people = labels.indices.map { $0 < 200 ? 0 : 1 }
        var features: [Float] = []
        for (label, person) in zip(labels, people) {
            for feature in 0..<4 {
                let signal: Float = feature == label + 2 * person ? 2 : 0
                features.append(signal + random.unitFloat() - 0.5)
            }
        }
        let byPerson = try RidgeClassifier(
            features: features, featureCount: 4, labels: labels, groups: people, classCount: 2, penalty: 1e-3)
        let together = try RidgeClassifier(
            features: features, featureCount: 4, labels: labels, groups: people.map { _ in 0 }, classCount: 2,
            penalty: 1e-3)
        let scale = try #require(byPerson.inverseTemperature), sure = try #require(together.inverseTemperature)
        #expect(scale < sure / 4)
        let probabilities = byPerson.scores(of: features)
        #expect(probabilities.allSatisfy { (0...1).contains($0) })
        for row in labels.indices {
            let sum: Float = probabilities[2 * row] + probabilities[2 * row + 1]
            #expect(abs(sum - 1) < 1e-5)
        }
        let sureProbabilities = together.scores(of: features)
        #expect(labels.indices.allSatisfy { sureProbabilities[2 * $0 + labels[$0]] > 0.9 })
    }

    @Test func theTemperatureIsTheOneOfLeastCrossEntropy() {
        var random = Xoshiro256(seed: 6)
        let labels = (0..<300).map { $0 % 3 }
        var scores: [Float] = []
        for label in labels {
            for column in 0..<3 { scores.append((column == label ? 0.6 : 0.2) + random.unitFloat() - 0.5) }
        }
        let crossEntropy = { (scale: Float) in
            var probabilities = scores
            SoftmaxTemperature.softmax(&probabilities, classCount: 3, scale: scale)
            return labels.enumerated().reduce(Float(0)) { $0 - logf(probabilities[$1.offset * 3 + $1.element]) }
        }
        let fitted = SoftmaxTemperature.fittedScale(scores: scores, labels: labels, classCount: 3)
        #expect(crossEntropy(fitted) < crossEntropy(fitted * 1.2))
        #expect(crossEntropy(fitted) < crossEntropy(fitted / 1.2))
    }

    @Test func theClassifierRecognisesAPersonItWasNotTrainedOn() throws {
        let test = sessions.filter { $0.user.rawValue == "user3" }
        let classifier = try RandomConvolutionClassifier(
            training: sessions.filter { $0.user.rawValue != "user3" }, classNames: ["a", "b", "c"],
            windowing: Windowing(window: 10), settings: .init(history: 60, outputCount: 500), seed: 1)
        let evaluation = Evaluation(classifier: classifier, sequences: test)
        #expect(Set(test.map { $0.labels[0] }) == [0, 1, 2])
        #expect(evaluation.accuracy > 0.9)
    }

    @Test func theFeaturesAreMadeAlikeOnOneThreadOrMore() throws {
        let training = sessions.filter { $0.user.rawValue != "user3" }
        let normalization = FeatureNormalization(fitting: training)
        let convolutions = RandomConvolutions(
            fitting: training.map { normalization.applied(to: $0.features) }, channelCount: 3, history: 60,
            outputCount: 500, seed: 1)
        let shared = convolutions.windowFeatures(
            of: training, normalizedBy: normalization, window: 10, team: ThreadTeam(threads: 2))
        #expect(
            shared
                == training.flatMap {
                    convolutions.windowFeatures(of: normalization.applied(to: $0.features), window: 10)
                })
        let fit = { (threads: Int) in
            try RandomConvolutionClassifier(
                training: training, classNames: ["a", "b", "c"], windowing: Windowing(window: 10),
                settings: .init(history: 60, outputCount: 500), seed: 1, threads: threads)
        }
        #expect(try fit(2) == fit(1))
    }

    @Test func besideANetworkEachWindowTakesTheClassOfTheMeanOfTheirScores() throws {
        let model = try trainSmallModel(epochs: 2)
        let classifier = try RandomConvolutionClassifier(
            training: smallSessions, classNames: model.classNames, windowing: model.windowing,
            settings: .init(history: 30, outputCount: 300), seed: 2)
        let classes = model.classNames.count
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: classes), count: classes)
        var disagreements = 0
        for (sequence, (scores, probabilities)) in zip(
            smallSessions, zip(classifier.scores(smallSessions), model.predict(smallSessions)))
        {
            let targets = model.windowing.windowLabels(sequence.labels, classCount: classes)
            for (window, target) in targets.enumerated() {
                let range = window * classes..<(window + 1) * classes
                let mean = zip(scores[range], probabilities[range]).map { ($0 + $1) / 2 }
                confusion[target][argmax(mean)] += 1
                if argmax(scores[range]) != argmax(probabilities[range]) { disagreements += 1 }
            }
        }
        let evaluation = Evaluation(classifier: classifier, alongside: model, sequences: smallSessions)
        #expect(evaluation.confusion == confusion)
        #expect(disagreements > 0, "the two disagree somewhere, so the mean decides")
    }
}
