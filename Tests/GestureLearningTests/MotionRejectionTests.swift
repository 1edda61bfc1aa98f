import GestureCore
import Testing

@testable import GestureLearning

/// Made-up sessions of four oscillations, each a take of one class: the first three taught (chop,
/// rest, shake), the fourth, the fastest and with other amplitudes, never.
private let sessions = SyntheticSessions(sessions: 32, totalSamples: 9_600, featureCount: 3, classCount: 4, seed: 5)
    .make()
private let taught = sessions.filter { $0.labels[0] < 3 }
private let neverTaught = sessions.filter { $0.labels[0] == 3 }
private let taughtGestures = taught.filter { $0.labels[0] != 1 }

private let model: GestureModel = {
    let description = ModelDescription(
        featureNames: ["a", "b", "c"], windowing: Windowing(window: 10), samplingRate: 25,
        classNames: ["chop", "rest", "shake"], layers: LayerSizes(convolutionFilters: 8, lstmUnits: 16, denseUnits: 16))
    // Training made-up sessions with these options cannot fail.
    return try! Trainer(
        model: description,
        options: TrainingOptions(epochs: 10, batchSize: 4, seed: 2, motionRejection: MotionCalibration())
    )
    .train(taught).model
}()

private let identity = (center: [Float](repeating: 0, count: 6), scale: [Float](repeating: 1, count: 6))

/// Streams `sequence` window after window as one live window slot does, returning for each window
/// its top class and whether the motion test rejects it.
private func streamed(_ sequence: LabeledSequence, by model: GestureModel) -> [(top: Int, rejected: Bool)] {
    let classifier = StreamingClassifier(model: model)
    let motion = model.rejection!.motion!
    let size = model.architecture.windowSize
    var state = classifier.initialState
    return stride(from: 0, through: sequence.features.count - size, by: size).map { start in
        let probabilities = classifier.step(Array(sequence.features[start..<start + size]), state: &state)
        let top = argmax(probabilities)
        return (top, motion.rejects(state.motion, as: top))
    }
}

@Suite struct MotionRejectionTests {
    @Test func theFirstWindowsStatisticsAreItsOwnAndLaterWindowsMoveThem() {
        var averages = MotionAverages(features: 2)
        let first: [Float] = [1, 10, 3, 10]
        first.withUnsafeBufferPointer { averages.add($0, decay: 0.5) }
        #expect(averages.statistics(center: [0, 0, 0, 0], scale: [1, 1, 1, 1]) == [2, 10, 1, 0])
        #expect(averages.statistics(center: [2, 0, 0, 0], scale: [1, 2, 1, 1]) == [0, 5, 1, 0])
        let still: [Float] = [5, 10, 5, 10]
        for _ in 0..<40 { still.withUnsafeBufferPointer { averages.add($0, decay: 0.5) } }
        let settled = averages.statistics(center: [0, 0, 0, 0], scale: [1, 1, 1, 1])
        #expect(abs(settled[0] - 5) < 1e-4 && abs(settled[1] - 10) < 1e-4 && settled[2] < 1e-2, "\(settled)")
    }

    /// What calibration measured on training windows is what a live window slot has.
    @Test func aWindowSlotHasTheStatisticsCalibrationMeasured() throws {
        let motion = try #require(model.rejection?.motion)
        #expect(motion.decay == MotionRejection.decay(window: 10, rate: 25))
        let sequence = taught[0]
        let offline = model.motionStatistics(of: [sequence], decay: motion.decay)
        let classifier = StreamingClassifier(model: model)
        var state = classifier.initialState
        let size = model.architecture.windowSize
        for (window, start) in stride(from: 0, through: sequence.features.count - size, by: size).enumerated() {
            _ = classifier.step(Array(sequence.features[start..<start + size]), state: &state)
            let live = state.motion.statistics(center: identity.center, scale: identity.scale)
            let measured = offline[window * 6..<(window + 1) * 6]
            #expect(zip(live, measured).allSatisfy { abs($0 - $1) < 1e-4 }, "window \(window): \(live) \(measured)")
        }
    }

    /// Each person's takes were measured against prototypes made without them; with prototypes made
    /// from everyone, at most the calibrated share of the takes the network finds has no window
    /// the test accepts.
    @Test func atMostTheCalibratedShareOfTheTakesTaughtIsLost() throws {
        let motion = try #require(model.rejection?.motion)
        #expect(motion.falseRejectRate == MotionCalibration().falseRejectRate)
        #expect(Set(motion.labels) == [0, 2], "rest has no prototypes")
        #expect(motion.limits[0] == motion.limits[2] && motion.limits[0] < 100, "one limit for every gesture")
        #expect(motion.limits[1] == .greatestFiniteMagnitude, "rest is never rejected")
        let found = taughtGestures.map { take in
            streamed(take, by: model).filter { $0.top == take.labels[0] }
        }.filter { !$0.isEmpty }
        let lost = found.filter { windows in windows.allSatisfy(\.rejected) }
        #expect(found.count >= taughtGestures.count / 2)
        #expect(Double(lost.count) <= motion.falseRejectRate * Double(found.count), "\(lost.count) of \(found.count)")
    }

    /// A take is found when one of its windows passes; the limit is the nearest window's, so most
    /// windows of a take do not, and a take never taught should have none that does.
    @Test func takesNeverTaughtHaveNoWindowThatPassesWhereTheTaughtOnesDo() {
        let passing = { (sequences: [LabeledSequence]) in
            let passed = sequences.filter { take in streamed(take, by: model).contains { $0.top != 1 && !$0.rejected } }
            return Double(passed.count) / Double(sequences.count)
        }
        let known = passing(taughtGestures), unknown = passing(neverTaught)
        #expect(known >= 0.75 && unknown <= known / 3, "known \(known), unknown \(unknown)")
    }

    /// Held gestures' limits are set per window: each person's windows measured against prototypes
    /// made without them. Against prototypes made from everyone, at most that share of the taught
    /// gestures' windows lies beyond the limit, and more of the windows never taught do.
    @Test func perWindowAtMostTheCalibratedShareOfTheWindowsTaughtIsRejected() throws {
        let share = 0.25
        let calibrated = model.calibratingRejection(
            on: taught, motion: MotionCalibration(falseRejectRate: share, perWindow: true))
        let motion = try #require(calibrated.rejection?.motion)
        let rejectedShare = { (sequences: [LabeledSequence], label: (LabeledSequence) -> Int) in
            let rejections = sequences.flatMap { sequence in
                let statistics = calibrated.motionStatistics(of: [sequence], decay: motion.decay)
                return stride(from: 0, to: statistics.count, by: 6).map { start in
                    let standardized = zip(statistics[start..<start + 6], zip(motion.center, motion.scale)).map {
                        ($0 - $1.0) / $1.1
                    }
                    return motion.distance(standardized, to: label(sequence)) > motion.limits[label(sequence)]
                }
            }
            return Double(rejections.filter { $0 }.count) / Double(rejections.count)
        }
        let known = rejectedShare(taughtGestures) { $0.labels[0] }
        let unknown = rejectedShare(neverTaught) { _ in 0 }
        #expect(known <= share && unknown > 2 * known, "known \(known), unknown \(unknown)")
        let byTake = try #require(model.rejection?.motion)
        #expect(motion.limits[0] != byTake.limits[0], "windows, not takes, set the limit")
    }

    @Test func perGestureLimitsAndAStricterShareAreCalibratedAsAsked() throws {
        let strict = try #require(
            model.calibratingRejection(on: taught, motion: MotionCalibration(falseRejectRate: 0.5)).rejection?.motion)
        let lenient = try #require(
            model.calibratingRejection(on: taught, motion: MotionCalibration(falseRejectRate: 0)).rejection?.motion)
        #expect(strict.limits[0] < lenient.limits[0])
        let own = try #require(
            model.calibratingRejection(on: taught, motion: MotionCalibration(pooled: false)).rejection?.motion)
        #expect(own.limits[0] != own.limits[2] && own.limits.filter { $0 < 100 }.count == 2)
        #expect(model.calibratingRejection(on: taught).rejection?.motion == nil, "off unless asked for")
    }

    @Test func theMotionTestRoundTripsThroughTheModelFileAndADamagedOneIsRefused() throws {
        #expect(try GestureModel(serialized: model.serialized()) == model)
        let rejection = try #require(model.rejection), motion = try #require(rejection.motion)
        var damaged = model
        damaged.rejection = Rejection(
            embedding: rejection.embedding, dimension: rejection.dimension, prototypes: rejection.prototypes,
            labels: rejection.labels, limits: rejection.limits, falseRejectRate: rejection.falseRejectRate,
            motion: MotionRejection(
                decay: 1, center: motion.center, scale: motion.scale, prototypes: motion.prototypes,
                labels: motion.labels, limits: motion.limits, falseRejectRate: motion.falseRejectRate))
        #expect {
            try GestureModel(serialized: damaged.serialized())
        } throws: { error in
            "\(error)".contains("the model file is inconsistent: motion rejection of 6 statistics, decay 1.0")
        }
    }
}
