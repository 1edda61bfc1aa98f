import GestureAnalysis
import GestureCore
import GestureTestSupport
import Testing

/// Five users with two to four sessions of each of two gestures.
private func dataset() throws -> Dataset {
    var sessions: [RecordedSession] = []
    for (u, user) in ["ann", "bob", "cy", "dee", "eve"].enumerated() {
        for gesture in ["twist", "wave"] {
            for take in 1...(2 + (u + gesture.count) % 3) {
                sessions.append(
                    try syntheticSession(
                        "\(user)-\(gesture)-\(take)", user: user, gesture: gesture, motion: twist, seconds: 1))
            }
        }
    }
    return Dataset(sessions: sessions)
}

@Suite struct SplitTests {
    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func byUserPutsEveryUserInOnePartAndEverySessionOnceInOrder(seed: UInt64) throws {
        let data = try dataset()
        let (entries, _) = try Split(strategy: .user, seed: seed).entries(for: data)
        #expect(entries.map(\.session).sorted() == data.sessions.map(\.id).sorted())
        var partOfUser: [UserID: Manifest.Part] = [:]
        for entry in entries {
            let user = try #require(data.session(entry.session)).user
            #expect(partOfUser[user, default: entry.part] == entry.part, "\(user) in two parts")
            partOfUser[user] = entry.part
        }
        #expect(Set(partOfUser.values) == [.train, .validation, .test])
        for part in Manifest.Part.allCases {
            let ids = entries.filter { $0.part == part }.map(\.session)
            #expect(ids == data.sessions.map(\.id).filter(ids.contains), "\(part) keeps the dataset's order")
        }
    }

    @Test func theSameSeedGivesTheSameSplitAndAnotherSeedMayNot() throws {
        let data = try dataset()
        let split = { (seed: UInt64) in try Split(strategy: .user, seed: seed).entries(for: data).entries }
        #expect(try split(7) == split(7))
        #expect(try Set((1...6).map { try split($0).filter { $0.part == .test }.map(\.session) }).count > 1)
    }

    @Test func bySessionKeepsSessionsWholeAndWarnsThatTestSharesUsers() throws {
        let data = try dataset()
        let (entries, warnings) = try Split(strategy: .session, seed: 3).entries(for: data)
        #expect(entries.count == data.sessions.count)
        #expect(Set(entries.map(\.session)).count == data.sessions.count)
        #expect(entries.filter { $0.part == .test }.count == Int((Double(data.sessions.count) * 0.15).rounded()))
        #expect(warnings.contains { $0.contains("shares") && $0.contains("with training") })
        #expect(try Split(strategy: .session, seed: 3).entries(for: data).entries == entries)
    }

    @Test func byUserRefusesOneUserAndWarnsAboutTwo() throws {
        let data = try dataset()
        let one = Dataset(sessions: data.sessions.filter { $0.user.rawValue == "ann" })
        let error = #expect(throws: AnalysisError.self) { try Split(strategy: .user).entries(for: one) }
        #expect(error?.description.contains("at least 2 users") == true)
        #expect(error?.setting == .splitBy(.user) && error?.remedy == .splitBy(.session))
        let two = Dataset(sessions: data.sessions.filter { ["ann", "bob"].contains($0.user.rawValue) })
        let (entries, warnings) = try Split(strategy: .user).entries(for: two)
        #expect(Set(entries.map(\.part)) == [.train, .test])
        #expect(warnings.contains { $0.contains("only 2 users") })
    }
}

@Suite struct BalanceTests {
    private func cells(_ ids: [SessionID], _ data: Dataset) -> [String: Int] {
        Dictionary(grouping: ids) { id in data.session(id).map { "\($0.gesture)/\($0.user)" }! }.mapValues(\.count)
    }

    @Test func underAndOverSamplingEvenOutEveryGestureAndUser() throws {
        let data = try dataset()
        let balance = Balance(data)
        #expect(Balance.imbalance(balance.byGesture) > 1 || Balance.imbalance(balance.byUser) > 1)
        let under = try balance.resampled(.under, seed: 1)
        #expect(Set(cells(under, data).values) == [2])
        #expect(Set(under).count == under.count)
        let over = try balance.resampled(.over, seed: 1)
        #expect(Set(cells(over, data).values) == [4])
        #expect(Set(over).isSuperset(of: data.sessions.map(\.id)))
        #expect(try balance.resampled(.under, seed: 1) == under)
    }

    @Test func aUserWithoutAGestureCannotBeBalanced() throws {
        let data = try dataset()
        let lopsided = Dataset(
            sessions: data.sessions.filter { !($0.user.rawValue == "bob" && $0.gesture.rawValue == "wave") })
        let error = #expect(throws: AnalysisError.self) { try Balance(lopsided).resampled(.under, seed: 1) }
        #expect(error?.description.contains("bob has no wave") == true)
    }
}
