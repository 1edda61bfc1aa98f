import GestureCore
import Testing

@testable import GestureLearning

/// Session accuracy over a session's gesture windows: the gesture it was recorded for, found among
/// the predictions other than rest.
@Suite struct SessionAccuracyTests {
    private let classes = ["chop", "rest", "shake"]
    private let chop = 0, rest = 1, shake = 2

    /// A session's windows: rest, then 26 of `gesture`, then rest, 46 in all.
    private var targets: [Int] {
        Array(repeating: rest, count: 10) + Array(repeating: chop, count: 26) + Array(repeating: rest, count: 10)
    }

    /// Evaluates sessions given their windows' targets and predictions.
    private func evaluate(
        _ sessions: [(targets: [Int], predictions: [Int])], classNames: [String]? = nil
    ) throws
        -> Evaluation
    {
        Evaluation(
            classNames: classNames ?? classes,
            sequences: try sessions.indices.map { try sequence(sessions[$0].targets, session: $0) },
            targets: sessions.map(\.targets), predictions: sessions.map(\.predictions))
    }

    @Test func oneGestureWindowRightAndTheRestCalledRestIsRight() throws {
        let predictions = targets.indices.map { $0 == 20 ? chop : rest }
        let evaluation = try evaluate([(targets, predictions)])
        let session = try #require(evaluation.sessions.first)
        #expect(session.gesture == "chop" && session.predictedGesture == "chop" && session.recognised)
        #expect(session.gestureWindowsRight == 1 && session.gestureWindows == 26)
        #expect(session.predictions == ["chop": 1, "rest": 45, "shake": 0])
        #expect(abs(session.windowAccuracy - 21.0 / 46) < 1e-12)
        #expect(evaluation.sessionAccuracy == 1 && evaluation.sessionsWithGesture == 1)
    }

    @Test func noGestureWindowRightOrAnotherGestureFoundIsWrong() throws {
        let allRest = Array(repeating: rest, count: targets.count)
        let mostlyShake = targets.indices.map { (10..<30).contains($0) ? shake : $0 == 31 ? chop : rest }
        let evaluation = try evaluate([(targets, allRest), (targets, mostlyShake)])
        #expect(evaluation.sessions.map(\.predictedGesture) == [nil, "shake"])
        #expect(evaluation.sessions.map(\.recognised) == [false, false])
        #expect(evaluation.sessions.map(\.gestureWindowsRight) == [0, 1])
        #expect(evaluation.sessionAccuracy == 0 && evaluation.sessionsWithGesture == 2)
    }

    @Test func aSessionThatIsAllRestIsNotCounted() throws {
        let allRest = Array(repeating: rest, count: 30)
        let right = targets
        let evaluation = try evaluate([
            (allRest, allRest), (right, right), (allRest, Array(repeating: shake, count: 30)),
        ])
        #expect(evaluation.sessions.map(\.gesture) == [nil, "chop", nil])
        #expect(evaluation.sessions.map(\.gestureWindows) == [0, 26, 0])
        #expect(evaluation.sessionsWithGesture == 1 && evaluation.sessionsRecognised == 1)
        #expect(evaluation.sessionAccuracy == 1)
    }

    /// Without a class named rest every class is a gesture: every window is a gesture window.
    @Test func aModelWithoutRestCountsEveryWindow() throws {
        let names = ["walk", "run"]
        let evaluation = try evaluate(
            [([0, 0, 0, 0], [0, 1, 1, 0]), ([1, 1, 1], [0, 0, 1]), ([0, 0, 1], [1, 1, 1])], classNames: names)
        #expect(evaluation.sessions.map(\.gesture) == ["walk", "run", "walk"])
        #expect(evaluation.sessions.map(\.predictedGesture) == ["walk", "walk", "run"])
        #expect(evaluation.sessions.map(\.gestureWindows) == [4, 3, 2])
        #expect(evaluation.sessionsWithGesture == 3 && evaluation.sessionsRecognised == 1)
    }
}
