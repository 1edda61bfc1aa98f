import ArgumentParser

extension ParsableCommand {
    /// The failure for arguments whose first word names none of the subcommands, with the closest
    /// name when one is close enough to be a slip: `gesture recrod` → "did you mean 'record'?".
    public static func unknownSubcommand(in arguments: [String]) -> Failure? {
        guard let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        let closest = names.map { ($0, word.editDistance(to: $0)) }.min { $0.1 < $1.1 }
        let suggestion = closest.flatMap { $0.1 <= max(2, word.count / 3) ? "; did you mean '\($0.0)'?" : nil }
        return .usage(
            "no command '\(word.quoted())'\(suggestion.map { $0 + " " } ?? "; ")`\(_commandName) --help` lists the commands"
        )
    }
}

extension String {
    /// The least number of characters inserted, deleted, replaced or swapped with a neighbour to
    /// turn this into `other` (optimal string alignment).
    func editDistance(to other: String) -> Int {
        let a = Array(self), b = Array(other)
        guard !a.isEmpty, !b.isEmpty else { return Swift.max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = Swift.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = Swift.min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
