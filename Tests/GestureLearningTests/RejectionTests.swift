import GestureCore
import Testing

@testable import GestureLearning

/// Made-up sessions of four oscillations: the first three taught (chop, rest, shake), the fourth,
/// the fastest, never.
private let sessions = SyntheticSessions(sessions: 24, totalSamples: 4_800, featureCount: 3, classCount: 4, seed: 11)
    .make()
private let taught = sessions.filter { $0.labels[0] < 3 }
private let neverTaught = sessions.filter { $0.labels[0] == 3 }

private let model: GestureModel = {
    let description = ModelDescription(
        featureNames: ["a", "b", "c"], windowing: Windowing(window: 10), samplingRate: 25,
        classNames: ["chop", "rest", "shake"], layers: LayerSizes(convolutionFilters: 8, lstmUnits: 16, denseUnits: 16))
    // Training made-up sessions with these options cannot fail.
    return try! Trainer(model: description, options: TrainingOptions(epochs: 10, batchSize: 4, seed: 2))
        .train(taught).model
}()

/// The share of `sequences`' windows that `model`'s streaming classifier rejects, each sequence
/// streamed window after window as the live detector streams one window slot.
private func rejectedShare(of sequences: [LabeledSequence], by model: GestureModel) -> Double {
    let classifier = StreamingClassifier(model: model)
    let size = model.architecture.windowSize
    var (rejected, windows) = (0, 0)
    for sequence in sequences {
        var state = classifier.initialState
        for start in stride(from: 0, through: sequence.features.count - size, by: size) {
            let probabilities = classifier.step(Array(sequence.features[start..<start + size]), state: &state)
            if classifier.rejects(probabilities, state: state) { rejected += 1 }
            windows += 1
        }
    }
    return Double(rejected) / Double(windows)
}

@Suite struct RejectionTests {
    /// The limits are measured on one half of the people against the other half's prototypes, so
    /// they reject at most the chosen share of the windows the prototypes were made from.
    @Test func trainingCalibratesTheLimitsOnWindowsThePrototypesWereNotMadeFrom() throws {
        let rejection = try #require(model.rejection)
        #expect(rejection.embedding == .lstm && rejection.falseRejectRate == Rejection.defaultFalseRejectRate)
        #expect(Set(rejection.labels) == [0, 2], "rest has no prototypes")
        let windows = model.embeddings(of: taught, .lstm, classCount: 3)
        let gestures = windows.labels.indices.filter { windows.labels[$0] != 1 }
        let rejected = windows.embeddings.withUnsafeBufferPointer { embeddings in
            gestures.filter {
                rejection.rejects(embeddings.baseAddress! + $0 * rejection.dimension, as: windows.labels[$0])
            }
        }
        let share = Double(rejected.count) / Double(gestures.count)
        #expect(share <= rejection.falseRejectRate, "\(rejected.count) of \(gestures.count)")
        let halves = GestureModel.halves(taught)
        #expect(Set(halves[0].map { taught[$0].user }).isDisjoint(with: halves[1].map { taught[$0].user }))
        #expect(halves.allSatisfy { !$0.isEmpty } && Set(halves.joined()) == Set(taught.indices))
    }

    /// Calibration embeds the windows once and takes each half's from them: a half's windows are
    /// those that embedding its sequences alone gives, numbered as if they were all there is.
    @Test func aHalfsWindowsAreThoseItsSequencesAloneGive() {
        let decay = MotionRejection.decay(window: 10, rate: 25)
        let all = model.embeddings(of: taught, .lstm, classCount: 3, motionDecay: decay)
        for half in GestureModel.halves(taught) {
            let alone = model.embeddings(of: half.map { taught[$0] }, .lstm, classCount: 3, motionDecay: decay)
            let restricted = all.restricted(to: half)
            #expect(restricted.labels == alone.labels && restricted.detected == alone.detected)
            #expect(restricted.takes == alone.takes && restricted.sequences == alone.sequences)
            #expect(restricted.takes.last! < all.takes.last! && restricted.sequences.max() == half.count - 1)
            for (values, aloneValues) in [(restricted.embeddings, alone.embeddings), (restricted.motion, alone.motion)]
            {
                #expect(values.count == aloneValues.count && !values.isEmpty)
                #expect(zip(values, aloneValues).allSatisfy { abs($0 - $1) <= 1e-5 })
            }
        }
    }

    @Test func motionNeverTaughtIsRejectedFarMoreOftenThanTheGesturesTaught() {
        let known = rejectedShare(of: taught.filter { $0.labels[0] != 1 }, by: model)
        let unknown = rejectedShare(of: neverTaught, by: model)
        #expect(unknown > 0.3 && unknown > 3 * known, "known \(known), unknown \(unknown)")
    }

    @Test func aLowerFalseRejectRateSetsAFartherLimit() throws {
        let strict = try #require(model.calibratingRejection(on: taught, falseRejectRate: 0.2).rejection)
        let lenient = try #require(model.calibratingRejection(on: taught, falseRejectRate: 0.01).rejection)
        #expect(zip(lenient.limits, strict.limits).allSatisfy { $0 >= $1 } && lenient.limits != strict.limits)
        #expect(lenient.limits[1] == 2, "rest is never rejected")
        let dense = try #require(model.calibratingRejection(on: taught, embedding: .dense).rejection)
        #expect(dense.dimension == 16 && dense.embedding == .dense)
    }

    /// Augmented copies reach beyond the motion people made (these ones far beyond): without
    /// everyday motion taught as `other`, the distance's prototypes and limits come from the
    /// recorded sessions alone; with it, from the copies too.
    @Test func theDistanceIsCalibratedOnTheRecordedSessionsNotOnTheirCopies() throws {
        let copies = taught.map { sequence in
            LabeledSequence(
                session: SessionID(rawValue: "\(sequence.session)-copy"), user: sequence.user, copyOf: sequence.session,
                featureCount: sequence.featureCount, features: sequence.features.map { -3 * $0 },
                labels: sequence.labels)
        }
        let recorded = try #require(model.calibratingRejection(on: taught).rejection)
        let withCopies = try #require(model.calibratingRejection(on: taught + copies).rejection)
        #expect(withCopies.prototypes == recorded.prototypes && withCopies.limits == recorded.limits)
        let asRecorded = copies.map { copy in
            LabeledSequence(
                session: copy.session, user: copy.user, featureCount: copy.featureCount, features: copy.features,
                labels: copy.labels)
        }
        let moved = try #require(model.calibratingRejection(on: taught + asRecorded).rejection)
        #expect(moved.limits != recorded.limits, "recorded, motion this far would move the limits")
        var learnsEverydayMotion = model
        learnsEverydayMotion.classNames = ["chop", "rest", "other"]
        let other = try #require(learnsEverydayMotion.calibratingRejection(on: taught + copies).rejection)
        let otherRecorded = try #require(learnsEverydayMotion.calibratingRejection(on: taught).rejection)
        #expect(other.prototypes != otherRecorded.prototypes && Set(other.labels) == [0])
    }

    @Test func theRejectionRoundTripsThroughTheModelFile() throws {
        let loaded = try GestureModel(serialized: model.serialized())
        #expect(loaded.rejection == model.rejection)
        let dense = model.calibratingRejection(on: taught, embedding: .dense)
        #expect(try GestureModel(serialized: dense.serialized()) == dense)
    }

    /// Files written before rejection have no such field in their header, nor its prototypes.
    @Test func aFileWithoutARejectionLoadsAndNeverRejects() throws {
        var old = model
        old.rejection = nil
        let bytes = old.serialized()
        #expect(!String(decoding: bytes, as: UTF8.self).contains("rejection"))
        #expect(bytes.count < model.serialized().count)
        let loaded = try GestureModel(serialized: bytes)
        #expect(loaded.rejection == nil)
        #expect(rejectedShare(of: neverTaught, by: loaded) == 0)
    }

    @Test func aRejectionOfAClassTheModelLacksIsInconsistent() throws {
        var damaged = model
        let rejection = try #require(model.rejection)
        damaged.rejection = Rejection(
            embedding: .lstm, dimension: rejection.dimension, prototypes: rejection.prototypes,
            labels: rejection.labels.map { $0 + 3 }, limits: rejection.limits, falseRejectRate: 0.05)
        #expect {
            try GestureModel(serialized: damaged.serialized())
        } throws: { error in
            "\(error)".contains("the model file is inconsistent: rejection with limits")
        }
    }
}
