import ArgumentParser
import GestureCore

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
