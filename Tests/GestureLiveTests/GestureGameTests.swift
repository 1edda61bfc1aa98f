import GestureLive
import Testing

@Suite struct GestureGameTests {
    private func prompts(_ events: [GestureGame.Event]) -> [String] {
        events.compactMap { if case .prompt(let gesture) = $0 { gesture } else { nil } }
    }

    @Test func aCorrectDetectionScoresAndCallsTheNextGesture() throws {
        var game = GestureGame(gestures: ["shake", "chop", "drive"], timeout: 5, seed: 3)
        let first = try #require(prompts(game.start(at: 0)).first)
        #expect(game.advance(to: 1, detected: nil).isEmpty)
        let events = game.advance(to: 2, detected: first)
        #expect(events.first == .scored(score: 1))
        #expect(prompts(events).count == 1)
        #expect(game.score == 1)
    }

    @Test func aWrongGestureEndsTheGame() throws {
        var game = GestureGame(gestures: ["shake", "chop"], timeout: 5, seed: 1)
        let asked = try #require(game.current ?? prompts(game.start(at: 0)).first)
        let wrong = asked == "shake" ? "chop" : "shake"
        #expect(game.advance(to: 1, detected: wrong) == [.over(reason: "saw \(wrong), not \(asked)", score: 0)])
        #expect(game.isOver)
        #expect(game.advance(to: 2, detected: asked).isEmpty)
    }

    @Test func theTimeoutEndsTheGameFromTheLastPrompt() throws {
        var game = GestureGame(gestures: ["shake"], timeout: 5, seed: 1)
        _ = game.start(at: 10)
        _ = game.advance(to: 12, detected: "shake")
        #expect(game.advance(to: 16.9, detected: nil).isEmpty)
        #expect(game.advance(to: 17, detected: nil) == [.over(reason: "no shake within 5 s", score: 1)])
    }

    @Test func afterAPointTheNextCallWaitsForThePauseAndDetectionsMeanwhileDoNotCount() throws {
        var game = GestureGame(gestures: ["shake", "chop"], timeout: 5, pause: 2, seed: 1)
        let first = try #require(prompts(game.start(at: 0)).first)
        #expect(game.advance(to: 1, detected: first) == [.scored(score: 1)])
        #expect(game.current == nil)
        #expect(game.advance(to: 2, detected: first == "shake" ? "chop" : "shake").isEmpty)
        #expect(game.advance(to: 2.9, detected: nil).isEmpty)
        #expect(prompts(game.advance(to: 3, detected: nil)).count == 1)
        #expect(game.advance(to: 7.9, detected: nil).isEmpty)
        #expect(game.advance(to: 8, detected: nil).first.map { if case .over = $0 { true } else { false } } == true)
    }

    @Test func theWinningScoreEndsTheGameAndNothingIsCalledAfterIt() throws {
        var game = GestureGame(gestures: ["shake", "chop"], timeout: 5, rounds: 2, pause: 2, seed: 1)
        let first = try #require(prompts(game.start(at: 0)).first)
        #expect(game.advance(to: 1, detected: first) == [.scored(score: 1)])
        let second = try #require(prompts(game.advance(to: 3, detected: nil)).first)
        #expect(game.advance(to: 4, detected: second) == [.won(score: 2)])
        #expect(game.isOver)
        for time in 5...20 { #expect(game.advance(to: Double(time), detected: nil).isEmpty) }
    }

    @Test func afterThePauseTheNextCallWaitsForThePlayerToRest() throws {
        var game = GestureGame(gestures: ["shake", "chop"], timeout: 5, pause: 2, seed: 1)
        let first = try #require(prompts(game.start(at: 0)).first)
        #expect(game.advance(to: 1, detected: first) == [.scored(score: 1)])
        #expect(game.advance(to: 3, detected: nil, resting: false).isEmpty)
        #expect(game.advance(to: 4, detected: nil, resting: false).isEmpty)
        #expect(prompts(game.advance(to: 4.2, detected: nil, resting: true)).count == 1)
    }

    @Test func aPlayerWhoNeverRestsIsCalledAfterTheTimeout() throws {
        var game = GestureGame(gestures: ["shake", "chop"], timeout: 5, pause: 2, seed: 1)
        let first = try #require(prompts(game.start(at: 0)).first)
        #expect(game.advance(to: 1, detected: first) == [.scored(score: 1)])
        #expect(game.advance(to: 7.9, detected: nil, resting: false).isEmpty)
        #expect(prompts(game.advance(to: 8, detected: nil, resting: false)).count == 1)
    }

    @Test func theSameSeedCallsOutTheSameGestures() {
        func calls(_ seed: UInt64) -> [String] {
            var game = GestureGame(gestures: ["shake", "chop", "drive"], timeout: 5, seed: seed)
            var called = prompts(game.start(at: 0))
            for time in 1...20 { called += prompts(game.advance(to: Double(time), detected: game.current)) }
            return called
        }
        #expect(calls(7) == calls(7))
        #expect(Set(calls(7)).count == 3)
        #expect(calls(7) != calls(8))
    }
}
