import GestureCore
import GestureTestSupport
import Testing

@Suite struct NameValidationTests {
    @Test(arguments: ["alice", "user_01", "B.Smith", "x"])
    func plainNamesAreAcceptedUnchanged(_ text: String) throws {
        #expect(try UserID(text).rawValue == text)
        #expect(try ActivityLabel(text).rawValue == text)
    }

    /// Each bad name with a phrase its error message must contain.
    static let badNames: [(text: String, phrase: String)] = [
        ("", "is empty"),
        ("a/b", "'/'"),
        ("a\\b", "'\\'"),
        ("a,b", "','"),
        ("say\"hi\"", "'\"'"),
        ("a b", "whitespace"),
        ("a\tb", "whitespace"),
        ("a\nb", "whitespace"),
        (" alice", "whitespace"),
        (".", "is not a name"),
        ("..", "is not a name"),
    ]

    @Test(arguments: badNames)
    func badUserIDsAreRejectedWithAReason(_ bad: (text: String, phrase: String)) {
        let error = #expect(throws: InvalidName.self) { try UserID(bad.text) }
        #expect(error?.description.contains(bad.phrase) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("user ID") == true)
    }

    @Test(arguments: badNames)
    func badGestureNamesAreRejectedWithAReason(_ bad: (text: String, phrase: String)) {
        let error = #expect(throws: InvalidName.self) { try ActivityLabel(bad.text) }
        #expect(error?.description.contains(bad.phrase) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("gesture") == true)
    }

    @Test func userIDWithAHyphenIsRejectedAndTheErrorExplainsTheHyphen() {
        let error = #expect(throws: InvalidName.self) { try UserID("mary-jane") }
        let text = error?.description ?? ""
        #expect(text.contains("'mary-jane'"))
        #expect(text.contains("contains '-'"))
        #expect(text.contains("hyphen"))
    }

    @Test func gestureNamesMayContainAHyphen() throws {
        #expect(try ActivityLabel("wave-hello").rawValue == "wave-hello")
    }

    @Test func dotsInsideANameAreFine() throws {
        #expect(try UserID("a..b").rawValue == "a..b")
        #expect(try ActivityLabel("...").rawValue == "...")
    }
}

@Suite struct UserIDFromFileNameTests {
    @Test(arguments: [
        ("alice-recordings.csv", "alice"),
        ("/x/y/bob-2020.csv", "bob"),
        ("carol.csv", "carol"),
        ("dave-a-b-c.csv", "dave"),
        ("relative/dir/erin-1.csv", "erin"),
    ])
    func userIsThePartOfTheFileNameBeforeTheFirstHyphen(_ fileName: String, _ user: String) throws {
        #expect(try UserID(fileName: fileName).rawValue == user)
    }

    @Test(arguments: ["-nobody.csv", ".csv", "/x/y/-z.csv"])
    func fileNameWithNothingBeforeTheHyphenIsRejected(_ fileName: String) {
        #expect(throws: InvalidName.self) { try UserID(fileName: fileName) }
    }
}

@Suite struct ActivityLabelTests {
    @Test func theBooksGesturesAndRestHaveTheirNames() throws {
        #expect(ActivityLabel.rest.rawValue == "rest")
        #expect(ActivityLabel.drive.rawValue == "drive")
        #expect(ActivityLabel.shake.rawValue == "shake")
        #expect(ActivityLabel.chop.rawValue == "chop")
        #expect(try ActivityLabel("rest") == .rest)
    }

    @Test func onlyRestIsRest() throws {
        #expect(ActivityLabel.rest.isRest)
        #expect(!ActivityLabel.shake.isRest)
        #expect(try !ActivityLabel("resting").isRest)
    }

    @Test func labelsAndUsersSortByName() throws {
        #expect([ActivityLabel.shake, .chop, .rest, .drive].sorted() == [.chop, .drive, .rest, .shake])
        #expect(try [UserID("bob"), UserID("alice")].sorted().map(\.description) == ["alice", "bob"])
    }
}
