import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore

struct BalanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "balance",
        abstract:
            "Show how sessions spread over gestures and users; --output writes a seeded, evened-out manifest of session IDs."
    )

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions

    @Option(help: "under: drop sessions from fuller gesture × user cells; over: repeat sessions of emptier ones.")
    var method: Balance.Method = .under

    @Option(help: "Seed of the sampling.") var seed: UInt64 = 1
    @Option(name: [.short, .customLong("output")], help: "Write the balanced manifest here.") var output: String?

    func run() throws {
        let balance = Balance(try selection.dataset(in: folder))
        Terminal.say(Summary.counts(DatasetStats(balance.dataset)))
        Terminal.say(
            String(
                format: "\nimbalance (largest / smallest count): gestures %.2f, users %.2f",
                Balance.imbalance(balance.byGesture), Balance.imbalance(balance.byUser)))
        guard let output else { return }
        let ids = try analysing { try balance.resampled(method, seed: seed) }
        let manifest = Manifest(
            recordings: folder.path, rate: selection.rate,
            entries: ids.map { Manifest.Entry(part: .sessions, session: $0) })
        try write(manifest.text, to: output)
        Terminal.say(
            "wrote \(output): \(ids.count.counting("session")) (\(Set(ids).count) distinct), \(method.rawValue)sampled with seed \(seed)"
        )
    }
}

struct SplitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split sessions into train, validation and test, whole and in order, seeded; writes a manifest.")

    @OptionGroup var folder: FolderOptions
    @OptionGroup var selection: SelectionOptions

    @Option(
        help:
            "user: every user in one set only; session: whole sessions at random (Turi Create's random_split_by_session)."
    )
    var by: Split.Strategy

    @Option(help: "Fraction for validation.") var validation = 0.15
    @Option(help: "Fraction for test.") var test = 0.15
    @Option(help: "Seed of the split.") var seed: UInt64 = 1
    @Option(
        name: .customLong("test-users"),
        help:
            "Comma-separated users whose sessions all go to test, e.g. s08,s09; the others split among the other parts."
    )
    var testUsers: String?
    @Option(
        name: .customLong("validation-users"),
        help: "Comma-separated users whose sessions all go to validation; the others split among the other parts.",
        completion: Completions.users)
    var validationUsers: String?
    @Option(name: [.short, .customLong("output")], help: "The manifest to write.") var output: String
    @Flag(help: "The parts as one JSON object.") var json = false

    func run() throws {
        let dataset = try selection.dataset(in: folder)
        let (entries, warnings) = try analysing {
            try Split(
                strategy: by, validation: validation, test: test, seed: seed, testUsers: names(testUsers),
                validationUsers: names(validationUsers)
            ).entries(for: dataset)
        }
        warnings.forEach(Terminal.warn)
        try write(Manifest(recordings: folder.path, rate: selection.rate, entries: entries).text, to: output)
        let sessions = Dictionary(grouping: entries, by: \.part)
        let parts = Manifest.Part.allCases.compactMap { part -> SplitPart? in
            guard let members = sessions[part] else { return nil }
            let users = Set(members.compactMap { dataset.session($0.session)?.user }).sorted()
            return SplitPart(part: part.rawValue, sessions: members.count, users: users.map(\.rawValue))
        }
        if json {
            Terminal.say(try jsonLine(SplitReport(manifest: output, parts: parts, warnings: warnings)))
            return
        }
        let rows = parts.map {
            [$0.part, "\($0.sessions)", "\($0.users.count)", $0.users.prefix(8).joined(separator: " ")]
        }
        Terminal.say(Summary.table(header: ["part", "sessions", "users", ""], rows: rows))
        Terminal.say("wrote \(output)")
    }

    private func names(_ list: String?) -> [String] {
        list?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    }
}

extension Balance.Method: ExpressibleByArgument {}
extension Split.Strategy: ExpressibleByArgument {}

/// `gesture split --json`: the manifest written and what each part holds.
private struct SplitReport: Encodable {
    var manifest: String
    var parts: [SplitPart]
    var warnings: [String]
}

private struct SplitPart: Encodable {
    var part: String
    var sessions: Int
    var users: [String]
}
