import Foundation
import GestureTestSupport
import Testing

/// README.md says what the executables do; these keep what it says true.
@Suite struct ReadmeTests {
    /// One option as README's table or `--help` gives it.
    struct Option: Equatable, CustomStringConvertible {
        var name: String
        /// The default as written; nil for none, "(required)" for an option that must be given.
        var defaultValue: String?

        var description: String { "--\(name) (\(defaultValue ?? "no default"))" }

        static func == (a: Option, b: Option) -> Bool {
            guard a.name == b.name else { return false }
            switch (a.defaultValue.flatMap(Double.init), b.defaultValue.flatMap(Double.init)) {
            case (let x?, let y?): return x == y
            default: return a.defaultValue == b.defaultValue
            }
        }
    }

    @Test func theRecordOptionTableAgreesWithHelp() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let table = try #require(Self.table(after: "<!-- options of: gesture record", in: readme))
        let help = try runGesture(["record", "--help"], in: .init(Repository.root.path)).succeeded().output
        let documented = table.flatMap(Self.options(inRow:)).sorted { $0.name < $1.name }
        let offered = Self.options(inHelp: help).sorted { $0.name < $1.name }
        #expect(documented.count > 10)
        #expect(documented == offered)
    }

    /// `gesture-bench sampling` accepts its options as README's synopsis writes them.
    @Test func theSamplingBenchTakesItsOptionsAsWritten() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let synopsis = try #require(readme.split(separator: "\n").first { $0.contains("gesture-bench sampling [") })
        let written = synopsis.split(separator: "[").dropFirst().map { $0.prefix { $0 != "]" } }
        var arguments = ["sampling"] + written.flatMap { $0.split(separator: " ").map(String.init) }
        for (option, short) in [("--seconds", "0.2"), ("--repeats", "1")] {
            let index = try #require(arguments.firstIndex(of: option))
            arguments[index + 1] = short
        }
        #expect(arguments.contains("400"))
        let result = try runGesture(
            arguments, in: .init(Repository.root.path), executable: builtExecutable("gesture-bench"))
        let rates = try result.succeeded().output.split(separator: "\n").compactMap {
            $0.split(separator: " ").first.map(String.init)
        }
        #expect(["25", "100", "400"].allSatisfy(rates.contains))
    }

    /// The rows of the Markdown table that follows the line starting with `marker`, header excluded.
    static func table(after marker: String, in text: String) -> [[String]]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(marker) }) else { return nil }
        return lines[(start + 1)...].prefix { $0.hasPrefix("|") }.dropFirst(2).map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// A row's options with their defaults: "`--take S` / `--rest S`" with "4 / 3" is two options.
    static func options(inRow row: [String]) -> [Option] {
        let names = flags(in: row[0])
        let separator = row[0].contains(" / ") ? " / " : ", "
        let defaults = row[1].isEmpty ? [] : names.count > 1 ? row[1].components(separatedBy: separator) : [row[1]]
        return names.enumerated().map { index, name in
            let value = index < defaults.count ? defaults[index].replacingOccurrences(of: "`", with: "") : nil
            return Option(name: name, defaultValue: value == "none" ? nil : value)
        }
    }

    /// The options `--help` lists, with the default each states; those in the usage line without
    /// brackets are required.
    static func options(inHelp help: String) -> [Option] {
        let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE:") }.map(String.init) ?? ""
        let required = Set(
            flags(in: usage.replacingOccurrences(of: #"\[[^\]]*\]"#, with: "", options: .regularExpression)))
        var entries: [String] = []
        for line in help.split(separator: "\n").drop(while: { $0 != "OPTIONS:" }).dropFirst() {
            if line.range(of: #"^  (-\w, )?--"#, options: .regularExpression) != nil {
                entries.append(String(line))
            } else if !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return entries.flatMap { entry -> [Option] in
            let head = entry.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }
            let stated = entry.firstMatch(of: /\(default: ([^)]*)\)/).map { String($0.1) }
            return flags(in: String(head)).filter { $0 != "help" && $0 != "version" }.map { name in
                Option(name: name, defaultValue: required.contains(name) ? "(required)" : stated)
            }
        }
    }

    private static func flags(in text: String) -> [String] {
        text.matches(of: /--([a-z][a-z-]*)/).map { String($0.1) }
    }
}
