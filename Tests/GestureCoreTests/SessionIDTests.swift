import GestureCore
import Testing

@Suite struct SessionIDTests {
    @Test func startAndTakeAreJoinedByAHyphen() {
        let id = SessionID(start: "2024-05-01T10:00:00Z", take: 3)
        #expect(id.rawValue == "2024-05-01T10:00:00Z-3")
        #expect(id.description == id.rawValue)
    }

    @Test(arguments: [1, 2, 9, 10, 123])
    func takeReadsBackTheTakeNumber(_ take: Int) {
        #expect(SessionID(start: "2024-05-01T10:00:00Z", take: take).take == take)
    }

    @Test(arguments: [
        ("2024-05-01T10:00:00Z-7", 7),
        ("2024-05-01T10:00:00+02:00-12", 12),
        ("session-04", 4),
    ])
    func takeIsTheNumberAfterTheLastHyphen(_ raw: String, _ take: Int) {
        #expect(SessionID(rawValue: raw).take == take)
    }

    @Test(arguments: [
        "2024-05-01T10:00:00Z", // no take at all: what follows the last hyphen is not a number
        "session-x",
        "session-", // nothing after the last hyphen
        "2024-05-3-", // a number before the last hyphen is not the take
        "17", // no hyphen
        "",
    ])
    func takeIsNilWithoutANumberAfterTheLastHyphen(_ raw: String) {
        #expect(SessionID(rawValue: raw).take == nil)
    }

    @Test func sessionsSortByTheirText() {
        let ids = ["b-1", "a-2", "a-1"].map { SessionID(rawValue: $0) }
        #expect(ids.sorted().map(\.rawValue) == ["a-1", "a-2", "b-1"])
    }
}
