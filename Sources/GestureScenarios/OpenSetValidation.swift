import Foundation
import GestureAnalysis
import GestureCore
import GestureLearning
import GestureLive
import GestureTraining

/// Leaving a gesture and a person out together: each fold trains on the other gestures of everyone
/// else, then replays all of the person's sessions through the live detector. Their takes of the
/// gesture left out, and their everyday motion (sessions labeled `other`), stand for motion the
/// model was never taught, so the fold measures what a detector meets among everyday motion.
public struct OpenSetValidation: Sendable {
    /// One fold: the gesture and the person left out, what is trained on and what is replayed.
    public struct Fold: Sendable {
        public var gesture: ActivityLabel
        public var user: UserID
        public var training: Dataset
        public var test: Dataset
    }

    public let folds: [Fold]

    /// Each gesture with one person (the first gesture with the first person, the second with the
    /// second, …), or with every person.
    public init(_ dataset: Dataset, everyPerson: Bool = false) throws(AnalysisError) {
        let users = Set(dataset.sessions.map(\.user)).sorted()
        let gestures = Set(dataset.sessions.map(\.gesture)).filter { !$0.isBackground }.sorted()
        guard users.count >= 2, gestures.count >= 2 else {
            throw AnalysisError(
                "leaving a gesture and a person out needs at least two gestures and two people; there are "
                    + "\(gestures.count.counting("gesture")) and \(users.count.counting("person", plural: "people"))")
        }
        folds = gestures.enumerated().flatMap { index, gesture in
            (everyPerson ? users : [users[index % users.count]]).map { user in
                Fold(
                    gesture: gesture, user: user,
                    training: Dataset(sessions: dataset.sessions.filter { $0.user != user && $0.gesture != gesture }),
                    test: Dataset(sessions: dataset.sessions.filter { $0.user == user }))
            }
        }
    }

    /// Trains each fold's experiment with `seed` and scores its replay with `settings`, telling each
    /// fold's score as it comes; returns their sum. Once `isCancelled` says so, the training under
    /// way stops at its next batch and the sum holds the folds done before.
    public func run(
        seed: UInt64, settings: DetectionSettings = DetectionSettings(), experiment: (Fold) throws -> Experiment,
        isCancelled: () -> Bool = { false }, each: (Fold, OpenSetScore) throws -> Void
    ) throws -> (score: OpenSetScore, folds: Int) {
        var total = OpenSetScore(), done = 0
        for fold in folds {
            let result = try experiment(fold).train(seed: seed, isCancelled: isCancelled)
            guard !result.wasCancelled else { break }
            let score = try OpenSetScore(model: result.model, replaying: fold, settings: settings)
            try each(fold, score)
            total = total + score
            done += 1
        }
        return (total, done)
    }
}

/// The live detector's figures on one person left out: their takes of the known gestures, their
/// takes of the gesture left out, and their everyday motion.
public struct OpenSetScore: Sendable {
    public var known = EventScore.none
    public var leftOut = EventScore.none
    public var everyday = EventScore.none

    public init(known: EventScore = .none, leftOut: EventScore = .none, everyday: EventScore = .none) {
        self.known = known
        self.leftOut = leftOut
        self.everyday = everyday
    }

    /// Replays the fold's person's sessions through `model`'s live detector.
    public init(
        model: GestureModel, replaying fold: OpenSetValidation.Fold, settings: DetectionSettings
    ) throws(LiveError) {
        let sessions = fold.test.sessions
        known = try EventScore(
            model: model, sessions: sessions.filter { !$0.gesture.isBackground && $0.gesture != fold.gesture },
            settings: settings)
        leftOut = try EventScore(
            model: model, sessions: sessions.filter { $0.gesture == fold.gesture }, settings: settings)
        everyday = try EventScore(model: model, sessions: sessions.filter { $0.gesture == .other }, settings: settings)
    }

    /// Every false detection, over all the time no known gesture covers.
    public var unknown: EventScore { known + leftOut + everyday }

    public static func + (a: OpenSetScore, b: OpenSetScore) -> OpenSetScore {
        OpenSetScore(known: a.known + b.known, leftOut: a.leftOut + b.leftOut, everyday: a.everyday + b.everyday)
    }

    public var summary: String {
        let share = known.events > 0 ? Double(known.found) / Double(known.events) * 100 : .nan
        let delay =
            known.delays.isEmpty
            ? "no delay"
            : String(
                format: "delay median %.2f s, p90 %.2f s", known.delays.median ?? .nan,
                known.delays.percentile(0.9) ?? .nan)
        return String(
            format:
                "%.1f false detections per hour of unknown motion (%d in %.2f h: %d on the left-out gesture's takes, "
                + "%d on %.2f h of everyday motion, %d on the known gestures' takes); %d of %d known gestures found "
                + "(%.1f %%), %@",
            unknown.falseDetectionsPerHour, unknown.falseDetections, unknown.unknownHours, leftOut.falseDetections,
            everyday.falseDetections, everyday.unknownHours, known.falseDetections, known.found, known.events, share,
            delay)
    }
}
