import GestureCore
import GestureRecording
import GestureTestSupport
import Testing

@Suite struct SessionProtocolTests {
    @Test func timelineFollowsThePlan() throws {
        let plan = try plan(takes: 3, take: 2, rest: 1)
        #expect(plan.cycle == 1 + 3 + 2 + 1)
        #expect(plan.sessionStart(take: 2) == 2 + 7)
        #expect(plan.go(take: 1) == 2 + 1 + 3)
        #expect(plan.stop(take: 3) == 2 + 14 + 4 + 2)
        #expect(plan.duration == 2 + 21)
    }

    @Test func promptsComeOnceInOrderWhenTheirTimeComes() throws {
        var session = SessionSchedule(plan: try plan(takes: 1, take: 2, rest: 2))
        #expect(session.prompts(through: 0).map(\.text) == ["Session start: 1 take of shake"])
        #expect(session.prompts(through: 1.99).isEmpty)
        #expect(session.prompts(through: 3.5).map(\.text) == ["Get ready to shake", "3"])
        #expect(session.prompts(through: 6).map(\.text) == ["2", "1", "Go"])
        #expect(session.prompts(through: 8).map(\.kind) == [.stop(take: 1)])
        #expect(session.prompts(through: 9).map(\.kind) == [.rest(take: 1)])
        #expect(session.prompts(through: .infinity).map(\.kind) == [.sessionComplete])
        #expect(session.prompts(through: .infinity).isEmpty)
    }

    @Test func labelsChangeExactlyAtGoAndStop() throws {
        let plan = try plan(takes: 2, take: 2, rest: 1)
        let session = SessionSchedule(plan: plan)
        #expect(session.position(at: 1.999) == nil)
        #expect(session.position(at: 2)?.take == 1)
        #expect(session.position(at: 5.99)?.label == .rest)
        #expect(session.position(at: 6)?.label == ActivityLabel.shake)
        #expect(session.position(at: 7.99)?.label == .shake)
        #expect(session.position(at: 8)?.label == .rest)
        #expect(session.position(at: 8.999)?.take == 1)
        #expect(session.position(at: 9)?.take == 2)
        #expect(session.position(at: 15.999)?.take == 2)
        #expect(session.position(at: 16) == nil)
    }

    @Test func samplesOnABoundaryAreNotPushedBackByRounding() throws {
        let plan = try plan(takes: 1, take: 2, rest: 1)
        let session = SessionSchedule(plan: plan)
        // 1000.06 − 1000 falls just short of 0.06 in binary floating point.
        let go = (1000 + plan.go(take: 1)) - 1000 - 1e-12
        #expect(session.position(at: go)?.label == .shake)
    }

    @Test func badPlansAreRefused() throws {
        #expect(throws: PlanError.self) { try plan(takes: 0) }
        #expect(throws: PlanError.self) { try plan(take: 0) }
        #expect(throws: PlanError.self) { try plan(rest: -1) }
        #expect(throws: PlanError.self) { try plan(rest: .nan) }
        #expect(throws: PlanError.self) { try plan("bob", "rest") }
    }
}
