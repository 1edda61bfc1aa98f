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

    /// Each user's part in `entries`.
    private func parts(_ entries: [Manifest.Entry], _ data: Dataset) throws -> [String: Set<Manifest.Part>] {
        var parts: [String: Set<Manifest.Part>] = [:]
        for entry in entries {
            parts[try #require(data.session(entry.session)).user.rawValue, default: []].insert(entry.part)
        }
        return parts
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func namedUsersGoWhereTheyAreNamedAndTheOthersSplitAmongTheOtherParts(seed: UInt64) throws {
        let data = try dataset()
        let tested = try parts(
            Split(strategy: .user, seed: seed, testUsers: ["bob", "dee"]).entries(for: data).entries, data)
        #expect(tested.filter { $0.value == [.test] }.keys.sorted() == ["bob", "dee"])
        #expect(tested.filter { $0.value == [.validation] }.count == 1)
        let both = try parts(
            Split(strategy: .user, seed: seed, testUsers: ["eve"], validationUsers: ["ann"]).entries(for: data).entries,
            data)
        #expect(both == ["eve": [.test], "ann": [.validation], "bob": [.train], "cy": [.train], "dee": [.train]])
        let (entries, _) = try Split(strategy: .session, seed: seed, testUsers: ["cy"]).entries(for: data)
        let bySession = try parts(entries, data)
        #expect(bySession["cy"] == [.test])
        #expect(bySession.filter { $0.key != "cy" }.allSatisfy { !$0.value.contains(.test) })
        #expect(entries.count == data.sessions.count)
    }

    @Test func unknownOrDoublyNamedUsersAreErrorsNamingThem() throws {
        let data = try dataset()
        let unknown = #expect(throws: AnalysisError.self) {
            try Split(strategy: .user, validationUsers: ["zed"]).entries(for: data)
        }
        #expect(unknown?.description == "no user 'zed' in the selection; its users are ann, bob, cy, dee, eve")
        #expect(unknown?.setting == .validationUsers)
        let twice = #expect(throws: AnalysisError.self) {
            try Split(strategy: .user, testUsers: ["ann"], validationUsers: ["ann"]).entries(for: data)
        }
        #expect(twice?.description == "user 'ann' is named for test and for validation")
        let everyone = #expect(throws: AnalysisError.self) {
            try Split(strategy: .session, testUsers: ["ann", "bob", "cy"], validationUsers: ["dee", "eve"])
                .entries(for: data)
        }
        #expect(everyone?.description.contains("leave some to train on") == true)
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
