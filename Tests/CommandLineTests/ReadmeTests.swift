import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// README.md and docs/ say what the executables do; these keep what they say true.
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
        let page = try String(contentsOfFile: Repository.path("docs/recording.md"), encoding: .utf8)
        let table = try #require(Self.table(after: "<!-- options of: gesture record", in: page))
        let help = try runGesture(["record", "--help"], in: .init(Repository.root.path)).succeeded().output
        let documented = table.flatMap(Self.options(inRow:)).sorted { $0.name < $1.name }
        let offered = Self.options(inHelp: help).sorted { $0.name < $1.name }
        #expect(documented.count > 10)
        #expect(documented == offered)
    }

    /// `gesture-bench sampling` accepts its options as docs/sensors.md's synopsis writes them.
    @Test func theSamplingBenchTakesItsOptionsAsWritten() throws {
        let page = try String(contentsOfFile: Repository.path("docs/sensors.md"), encoding: .utf8)
        let synopsis = try #require(page.split(separator: "\n").first { $0.contains("gesture-bench sampling [") })
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

    /// Every `gesture` and `gesture-bench` command in the code blocks of README.md and docs/ names
    /// a subcommand that exists and options its `--help` lists.
    @Test func everyCommandInTheDocsNamesOptionsThatExist() throws {
        let pages =
            try ["README.md"]
            + FileManager.default.contentsOfDirectory(atPath: Repository.path("docs")).filter { $0.hasSuffix(".md") }
            .map { "docs/" + $0 }
        var helps: [[String]: Set<String>] = [:]
        var checked = 0
        for page in pages {
            let text = try String(contentsOfFile: Repository.path(page), encoding: .utf8)
            for command in Self.commands(inCodeBlocksOf: text) {
                let executable =
                    command.executable == "gesture-bench" ? builtExecutable("gesture-bench") : gestureExecutable
                let subcommand = command.words.first.map { $0.hasPrefix("-") ? [] : [$0] } ?? []
                let key = [command.executable] + subcommand
                if helps[key] == nil {
                    let help = try runGesture(
                        subcommand + ["--help"], in: .init(Repository.root.path), executable: executable)
                    #expect(help.status == 0, "\(page): \(key.joined(separator: " ")): \(help.error)")
                    helps[key] = Set(help.output.matches(of: /(?:^|[\s,\[(])(--?[a-z][a-z0-9-]*)/).map { String($0.1) })
                }
                let options = command.words.filter { $0.hasPrefix("-") && $0.count > 1 }.map {
                    String($0.prefix { $0 != "=" })
                }
                for option in options where !helps[key]!.contains(option) {
                    Issue.record("\(page): `\(command.line)`: \(key.joined(separator: " ")) has no option \(option)")
                }
                checked += 1
            }
        }
        #expect(checked > 40)
    }

    /// README's five-minute tour, run as written (but for installing), finds the three gestures the
    /// simulated person performs, in order. CI runs it again with the installed executables
    /// (`GESTURE_BIN`) in the clone where `scripts/demo` has just run (`GESTURE_TOUR_FOLDER`).
    @Test func theTourRunsAsWritten() throws {
        let readme = try String(contentsOfFile: Repository.path("README.md"), encoding: .utf8)
        let tour = try #require(
            readme.firstRange(of: "## Five minutes").flatMap { start in
                readme[start.upperBound...].firstRange(of: "\n## ").map { readme[start.upperBound..<$0.lowerBound] }
            })
        let blocks = tour.split(separator: "```", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 && $0.element.hasPrefix("sh\n") }.map { $0.element.dropFirst(3) }
        let lines = blocks.joined().split(separator: "\n")
        #expect(lines.first == "scripts/install", "the tour starts from the installed, release build")
        let script = lines.filter { !$0.hasPrefix("scripts/install") && !$0.hasPrefix("export PATH") }
            .joined(separator: "\n")
        let environment = ProcessInfo.processInfo.environment
        let temporary = try TemporaryFolder()
        let folder = environment["GESTURE_TOUR_FOLDER"].map { FilePath($0) } ?? temporary.path
        let binaries = environment["GESTURE_BIN"] ?? (gestureExecutable as NSString).deletingLastPathComponent
        var tourEnvironment = environment
        tourEnvironment["PATH"] = binaries + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try runGesture(
            ["-euo", "pipefail", "-c", script], in: folder, environment: tourEnvironment, executable: "/bin/bash")
        #expect(result.status == 0, "\(result.error)")
        let detections = result.output.split(separator: "\n").suffix(3).map { $0.split(separator: " ")[2] }
        #expect(detections == ["shake", "chop", "drive"], "\(result.output.suffix(500))")
    }

    /// The commands on the lines of a text's shell code blocks (not those that show output): continuation lines joined, split at `;`,
    /// `&&` and `|`, comments cut, shell words such as `do` skipped, those that run `gesture` or
    /// `gesture-bench` (by any path) kept, with the words after the executable.
    static func commands(inCodeBlocksOf text: String) -> [(line: String, executable: String, words: [String])] {
        var inBlock = false
        var inShellBlock = false
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock.toggle()
                inShellBlock = inBlock && line == "```sh"
            } else if inShellBlock {
                if lines.last?.hasSuffix("\\") == true {
                    lines[lines.count - 1] = String(lines[lines.count - 1].dropLast()) + line
                } else {
                    lines.append(String(line))
                }
            }
        }
        let segments = lines.flatMap { line in
            line.split(separator: " #").first.map { $0.split(whereSeparator: { ";|&".contains($0) }) } ?? []
        }
        return segments.compactMap { segment in
            let words = segment.split(separator: " ").map(String.init)
                .drop { ["do", "then", "time", "sudo", "$"].contains($0) || $0.contains("=") }
            guard let first = words.first, let name = first.split(separator: "/").last.map(String.init),
                ["gesture", "gesture-bench"].contains(name)
            else { return nil }
            return (segment.trimmingCharacters(in: .whitespaces), name, Array(words.dropFirst()))
        }
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
