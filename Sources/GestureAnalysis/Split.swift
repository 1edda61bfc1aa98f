import GestureCore
import GestureMotion

/// Divides sessions into training, validation and test sets, seeded, never cutting a session.
public struct Split: Sendable {
    public enum Strategy: String, Sendable, CaseIterable {
        /// Each user's sessions all land in one set: the test measures people the model never saw.
        case user
        /// Turi Create's random_split_by_session: whole sessions at random, users shared between sets.
        case session
    }

    public var strategy: Strategy
    public var validation: Double
    public var test: Double
    public var seed: UInt64
    /// Users whose sessions all go to test, or to validation; the others split as the strategy
    /// says among the parts left, a part with named users taking no others.
    public var testUsers: [String]
    public var validationUsers: [String]

    public init(
        strategy: Strategy, validation: Double = 0.15, test: Double = 0.15, seed: UInt64 = 1,
        testUsers: [String] = [], validationUsers: [String] = []
    ) {
        self.strategy = strategy
        self.validation = validation
        self.test = test
        self.seed = seed
        self.testUsers = testUsers
        self.validationUsers = validationUsers
    }

    /// The split as manifest entries (train, then validation, then test; dataset order within
    /// each), and warnings about what the test set can and cannot measure.
    public func entries(for dataset: Dataset) throws(AnalysisError) -> (entries: [Manifest.Entry], warnings: [String]) {
        guard validation >= 0, test > 0, validation + test < 1 else {
            throw AnalysisError(
                "validation \(validation) and test \(test) must be fractions with test > 0 and a sum below 1",
                setting: .splitShares)
        }
        var warnings: [String] = []
        let named = try namedParts(dataset)
        let part: [SessionID: Manifest.Part]
        switch strategy {
        case .user: part = try byUser(dataset, named: named, warnings: &warnings)
        case .session: part = bySession(dataset, named: named)
        }
        let entries = Manifest.Part.allCases.flatMap { p in
            dataset.sessions.filter { part[$0.id] == p }.map { Manifest.Entry(part: p, session: $0.id) }
        }
        let users = { (p: Manifest.Part) in Set(dataset.sessions.filter { part[$0.id] == p }.map(\.user)) }
        let shared = users(.test).intersection(users(.train)).sorted()
        if !shared.isEmpty {
            warnings.append(
                "the test set shares \(shared.count.counting("user")) with training (\(shared.prefix(6).map(\.rawValue).joined(separator: ", "))): it measures known people, not new ones; split by user for that"
            )
        }
        return (entries, warnings)
    }

    /// The part of each named user, each checked against the selection's users.
    private func namedParts(_ dataset: Dataset) throws(AnalysisError) -> [UserID: Manifest.Part] {
        let known = Dictionary(uniqueKeysWithValues: dataset.users.map { ($0.rawValue, $0) })
        var parts: [UserID: Manifest.Part] = [:]
        for (names, part, setting) in [
            (testUsers, Manifest.Part.test, AnalysisSetting.testUsers),
            (validationUsers, .validation, .validationUsers),
        ] {
            for name in names {
                guard let user = known[name] else {
                    throw AnalysisError(
                        "no user '\(name)' in the selection; its users are \(known.keys.sorted().joined(separator: ", "))",
                        setting: setting)
                }
                guard parts[user] == nil || parts[user] == part else {
                    throw AnalysisError("user '\(name)' is named for test and for validation", setting: setting)
                }
                parts[user] = part
            }
        }
        guard dataset.users.contains(where: { parts[$0] == nil }) else {
            throw AnalysisError(
                "every user is named for test or validation; leave some to train on", setting: .testUsers)
        }
        return parts
    }

    /// `fraction` of `total`, rounded.
    private func share(_ fraction: Double, of total: Int) -> Int { Int((Double(total) * fraction).rounded()) }

    private func byUser(
        _ dataset: Dataset, named: [UserID: Manifest.Part], warnings: inout [String]
    ) throws(AnalysisError) -> [SessionID: Manifest.Part] {
        let users = dataset.users
        guard users.count >= 2 else {
            throw AnalysisError(
                "splitting by user needs at least 2 users, the selection has \(users.count) (\(users.map(\.rawValue).joined(separator: ", "))); record more people",
                setting: .splitBy(.user), remedy: .splitBy(.session))
        }
        var random = SeededRandom(seed: seed, "split", "user")
        let shuffled = users.filter { named[$0] == nil }.shuffled(using: &random)
        let namedParts = Set(named.values)
        let testCount = namedParts.contains(.test) ? 0 : min(max(1, share(test, of: users.count)), shuffled.count - 1)
        var validationCount =
            namedParts.contains(.validation) || validation == 0 ? 0 : max(1, share(validation, of: users.count))
        let tested = testCount + named.values.filter { $0 == .test }.count
        if shuffled.count - testCount - validationCount < 1 {
            validationCount = max(0, shuffled.count - testCount - 1)
            let validated = validationCount + named.values.filter { $0 == .validation }.count
            warnings.append(
                "only \(users.count.counting("user")): \(validated) for validation, \(tested) for test, the rest for training"
            )
        } else if users.count < 5 {
            warnings.append(
                "only \(users.count.counting("user")): the test set measures \(tested.counting("person", plural: "people")), a noisy estimate"
            )
        }
        var partOfUser = named
        for (k, user) in shuffled.enumerated() {
            partOfUser[user] = k < testCount ? .test : k < testCount + validationCount ? .validation : .train
        }
        return Dictionary(
            dataset.sessions.map { ($0.id, partOfUser[$0.user]!) }, uniquingKeysWith: { first, _ in first })
    }

    private func bySession(_ dataset: Dataset, named: [UserID: Manifest.Part]) -> [SessionID: Manifest.Part] {
        var random = SeededRandom(seed: seed, "split", "session")
        let ids = dataset.sessions.filter { named[$0.user] == nil }.map(\.id).shuffled(using: &random)
        let namedParts = Set(named.values)
        let testCount = namedParts.contains(.test) ? 0 : max(1, share(test, of: dataset.sessions.count))
        let validationCount = namedParts.contains(.validation) ? 0 : share(validation, of: dataset.sessions.count)
        let free = ids.enumerated().map { k, id in
            (id, k < testCount ? Manifest.Part.test : k < testCount + validationCount ? .validation : .train)
        }
        let placed = dataset.sessions.compactMap { session in named[session.user].map { (session.id, $0) } }
        return Dictionary(free + placed, uniquingKeysWith: { first, _ in first })
    }
}
