import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// What every command does alike: exit codes and `--version`.
@Suite struct ConventionTests {
    /// Bad usage exits 2, whether the argument parser or the command's own checks find it.
    @Test(arguments: [
        (["stats", "--bogus"], "Error: Unknown option '--bogus'"),
        (["record", "--device", "sim", "--gesture", "shake"], "Error: Missing expected argument '--user <user>'"),
        (["train", "--epochs", "x"], "Error: The value 'x' is invalid for '--epochs <epochs>'"),
        (["record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "0"], "gesture: "),
        (["sessions"], "gesture: no recordings folder at recordings"),
        (["devices", "--profiles", "none"], "gesture: no device profiles folder at none"),
        (["plot", "--panels", "0", "-o", "x.svg"], "gesture: --panels 0 is not a number from 1 to 1000"),
        (
            ["personalize", "--model", "m.model", "--user", "ann", "--method", "finetune", "--learning-rate", "nan"],
            "gesture: --learning-rate nan is not a learning rate from 1e-09 to 10"
        ),
        (
            ["record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--take", "0.1"],
            "gesture: take must last at least 1 second"
        ),
    ])
    func badUsageExitsTwo(arguments: [String], message: String) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(arguments, in: folder.path)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix(message), "\(result.error)")
    }

    @Test(arguments: [
        ("recrod", "gesture: no command 'recrod'; did you mean 'record'? `gesture --help` lists the commands\n"),
        ("trian", "gesture: no command 'trian'; did you mean 'train'? `gesture --help` lists the commands\n"),
        ("xyzzy", "gesture: no command 'xyzzy'; `gesture --help` lists the commands\n"),
    ])
    func aMistypedCommandNamesTheClosestOne(word: String, message: String) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture([word, "--user", "ann"], in: folder.path)
        #expect(result.status == 2)
        #expect(result.error == message)
    }

    @Test func helpGroupsTheCommandsWithAnExampleForEachGroup() throws {
        let help = try runGesture(["--help"], in: .init(Repository.root.path)).succeeded().output
        for group in ["RECORDING", "SESSIONS AND LABELS", "ANALYSIS", "LEARNING", "LIVE", "MODEL FORMATS"] {
            #expect(help.contains("\(group) SUBCOMMANDS:"), "\(group)")
        }
        for example in [
            "gesture record --device sim", "gesture relabel", "gesture split", "gesture train", "gesture detect",
            "gesture export",
        ] {
            #expect(help.contains("  " + example), "\(example)")
        }
    }

    @Test(arguments: [["--version"], ["record", "--version"], ["detect", "--version"]])
    func versionIsOneLineOfThreeNumbers(arguments: [String]) throws {
        let result = try runGesture(arguments, in: FilePath("/")).succeeded()
        #expect(result.output.wholeMatch(of: /\d+\.\d+\.\d+\n/) != nil, "\(result.output)")
    }

    /// `--json` prints JSON Lines in every command that has it: each line one object.
    @Test func everyJSONOutputIsOneObjectPerLine() throws {
        let folder = try TemporaryFolder()
        for (user, gesture) in [("ann", "shake"), ("ann", "chop"), ("ben", "shake"), ("ben", "chop"), ("cat", "shake")]
        {
            try runGesture(
                [
                    "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--fast",
                    "--quiet", "--keep",
                    "--append",
                ],
                in: folder.path
            ).succeeded()
        }
        let commands: [(arguments: [String], lines: ClosedRange<Int>)] = [
            (["sessions"], 10...10),
            (["devices"], 1...10),
            (["stats"], 1...1),
            (["clean"], 0...10),
            (["check"], 1...1),
            (["split", "--by", "user", "--seed", "2", "-o", "split.txt"], 1...1),
            (["train", "--manifest", "split.txt", "--epochs", "2", "--output", "m.model"], 3...3),
            (["evaluate", "m.model", "--test", "split.txt"], 1...1),
            (
                [
                    "detect", "--device", "sim", "--model", "m.model", "--fast", "--perform", "shake", "--threshold",
                    "0", "--predictions",
                ],
                1...10_000
            ),
        ]
        for (arguments, lines) in commands {
            let result = try runGesture(arguments + ["--json"], in: folder.path)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            let objects = try result.output.split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(lines.contains(objects.count), "\(arguments): \(objects.count) lines")
            #expect(objects.allSatisfy { $0 != nil }, "\(arguments): \(result.output.prefix(300))")
        }
    }

    /// `Ann` recording where `ann` has recorded records as `ann`, and says so: one person, one file.
    @Test func namesThatDifferOnlyInCaseAreTheNamesRecordedAlready() throws {
        let folder = try TemporaryFolder()
        _ = try recordOneTake(user: "ann", gesture: "shake", in: folder)
        let again = try recordOneTake(user: "Ann", gesture: "Shake", in: folder)
        #expect(again.error.contains("gesture: warning: user 'Ann' is 'ann' in the recordings already; using 'ann'"))
        #expect(again.error.contains("gesture: warning: gesture 'Shake' is 'shake' in the recordings already"))
        #expect(
            try folder.recordings.csvFiles(in: folder.recordings.root).map(\.lastComponent!.string) == [
                "ann-recordings.csv"
            ])
        let sessions = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output
        #expect(
            sessions.split(separator: "\n").allSatisfy {
                $0.contains("\"user\":\"ann\"") && $0.contains("\"gesture\":\"shake\"")
            })
    }

    /// A name one slip away from one recorded is recorded as typed, with a warning naming the one
    /// recorded: it may be a new person or gesture.
    @Test func aNameCloseToOneRecordedIsRecordedAsTypedWithAWarning() throws {
        let folder = try TemporaryFolder()
        let first = try recordOneTake(user: "alice", gesture: "shake", in: folder)
        #expect(!first.error.contains("warning"), "\(first.error)")
        let again = try recordOneTake(user: "alic", gesture: "shkae", in: folder)
        #expect(again.error.contains("gesture: warning: user 'alic' is new; did you mean 'alice' (1 session)?\n"))
        #expect(again.error.contains("gesture: warning: gesture 'shkae' is new; did you mean 'shake' (1 session)?\n"))
        let sessions = try runGesture(["sessions", "--json"], in: folder.path).succeeded().output
        #expect(sessions.contains("\"user\":\"alic\"") && sessions.contains("\"gesture\":\"shkae\""), "\(sessions)")
        #expect(sessions.split(separator: "\n").count == 2)
    }

    private func recordOneTake(user: String, gesture: String, in folder: TemporaryFolder) throws -> ProcessResult {
        try runGesture(
            [
                "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "1", "--fast", "--quiet",
                "--keep", "--append",
            ],
            in: folder.path
        ).succeeded()
    }
}
