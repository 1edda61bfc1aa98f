import GestureCore
import Testing

@Suite struct NameSpellingTests {
    let gestures = KnownNames(sessions: ["shake", "shake", "shake", "chop", "drive", "Shaker"])
    let users = KnownNames(sessions: ["alice", "alice", "bob"], others: ["carol"])

    @Test func namesCountTheirSessions() {
        #expect(
            users.names == [
                .init(name: "alice", sessions: 2), .init(name: "bob", sessions: 1), .init(name: "carol", sessions: 0),
            ])
    }

    @Test func aNameHeldIsKnownAndANameFarFromAllIsNew() {
        #expect(gestures.spelling(of: "shake") == .known)
        #expect(gestures.spelling(of: "wave") == .new)
        #expect(gestures.spelling(of: "circle") == .new)
        #expect(gestures.warning(for: "wave") == nil)
    }

    @Test func aNameInOtherLetterCaseIsTheNameHeld() {
        #expect(gestures.spelling(of: "SHAKE") == .recased("shake"))
        #expect(gestures.spelling(of: "SHAKE").recorded("SHAKE") == "shake")
        #expect(
            gestures.warning(for: "SHAKE") == "gesture 'SHAKE' is 'shake' in the recordings already; using 'shake'")
    }

    @Test func aSlipOfOneOrTwoCharactersIsNearTheNameHeldAndRecordedAsTyped() {
        #expect(gestures.spelling(of: "shkae") == .near(.init(name: "shake", sessions: 3)))
        #expect(gestures.spelling(of: "shkae").recorded("shkae") == "shkae")
        #expect(gestures.warning(for: "shkae") == "gesture 'shkae' is new; did you mean 'shake' (3 sessions)?")
        #expect(users.spelling(of: "alic") == .near(.init(name: "alice", sessions: 2)))
        #expect(gestures.spelling(of: "drivve") == .near(.init(name: "drive", sessions: 1)))
        #expect(gestures.spelling(of: "Shakker") == .near(.init(name: "Shaker", sessions: 1)))
        #expect(gestures.warning(for: "drivve") == "gesture 'drivve' is new; did you mean 'drive' (1 session)?")
    }

    @Test func shortNamesAreNeverNearAndFourOrFiveCharactersAllowOneSlip() {
        #expect(users.spelling(of: "bo") == .new)
        #expect(users.spelling(of: "bobb") == .near(.init(name: "bob", sessions: 1)))
        #expect(gestures.spelling(of: "chip") == .near(.init(name: "chop", sessions: 1)))
        #expect(gestures.spelling(of: "chat") == .new)
        #expect(gestures.spelling(of: "shapes") == .near(.init(name: "shake", sessions: 3)))
    }

    @Test func theClosestNameWinsThenTheOneWithMoreSessions() {
        let names = KnownNames(sessions: ["wave", "wave", "wake", "waves"])
        #expect(names.spelling(of: "wavy") == .near(.init(name: "wave", sessions: 2)))
        #expect(names.spelling(of: "wavee") == .near(.init(name: "wave", sessions: 2)))
    }
}

extension KnownNames {
    fileprivate func warning(for typed: String) -> String? {
        spelling(of: typed).warning(about: typed, what: "gesture")
    }
}
