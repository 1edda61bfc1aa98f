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

    public init(strategy: Strategy, validation: Double = 0.15, test: Double = 0.15, seed: UInt64 = 1) {
        self.strategy = strategy
        self.validation = validation
        self.test = test
        self.seed = seed
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
        let part: [SessionID: Manifest.Part]
        switch strategy {
        case .user: part = try byUser(dataset, warnings: &warnings)
        case .session: part = bySession(dataset)
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

    private func byUser(
        _ dataset: Dataset, warnings: inout [String]
    ) throws(AnalysisError) -> [SessionID: Manifest.Part] {
        let users = dataset.users
        guard users.count >= 2 else {
            throw AnalysisError(
                "splitting by user needs at least 2 users, the selection has \(users.count) (\(users.map(\.rawValue).joined(separator: ", "))); record more people",
                setting: .splitBy(.user), remedy: .splitBy(.session))
        }
        var random = SeededRandom(seed: seed, "split", "user")
        let shuffled = users.shuffled(using: &random)
        let testCount = max(1, Int((Double(users.count) * test).rounded()))
        var validationCount = validation > 0 ? max(1, Int((Double(users.count) * validation).rounded())) : 0
        if users.count - testCount - validationCount < 1 {
            validationCount = max(0, users.count - testCount - 1)
            warnings.append(
                "only \(users.count.counting("user")): \(validationCount) for validation, \(testCount) for test, the rest for training"
            )
        } else if users.count < 5 {
            warnings.append(
                "only \(users.count.counting("user")): the test set measures \(testCount.counting("person", plural: "people")), a noisy estimate"
            )
        }
        var partOfUser: [UserID: Manifest.Part] = [:]
        for (k, user) in shuffled.enumerated() {
            partOfUser[user] = k < testCount ? .test : k < testCount + validationCount ? .validation : .train
        }
        return Dictionary(
            dataset.sessions.map { ($0.id, partOfUser[$0.user]!) }, uniquingKeysWith: { first, _ in first })
    }

    private func bySession(_ dataset: Dataset) -> [SessionID: Manifest.Part] {
        var random = SeededRandom(seed: seed, "split", "session")
        let ids = dataset.sessions.map(\.id).shuffled(using: &random)
        let testCount = max(1, Int((Double(ids.count) * test).rounded()))
        let validationCount = Int((Double(ids.count) * validation).rounded())
        return Dictionary(
            ids.enumerated().map { k, id in
                (id, k < testCount ? .test : k < testCount + validationCount ? .validation : .train)
            }, uniquingKeysWith: { first, _ in first })
    }
}
