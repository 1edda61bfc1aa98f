import ArgumentParser
import Foundation
import GestureCommandLine
import GestureCore
import GestureSensors

/// Every command that reads or changes a recording file, run on one made of hour-long takes: the
/// wall time and the peak resident memory of each, measured by the kernel for that process alone.
struct LargeFileBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "large-file",
        abstract:
            "Peak memory and time of check, stats, a replay, relabel, trim, undo, discard and restore on a file of hour-long takes."
    )

    @Option(help: "Hour-long takes at 100 Hz in the file (15 make about 2 GB).") var hours = 15
    @Option(help: "A folder to keep the recordings in; made when missing, reused when present.") var folder: String?

    func run() throws {
        try Failure.check("--hours", hours, in: 1...100)
        let root = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("gesture-bench-large").path
        defer { if folder == nil { try? FileManager.default.removeItem(atPath: root) } }
        try makeRecordings(in: root)
        try makeModel(in: root)
        let file = root + "/recordings/big-recordings.csv"
        let bytes = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let id = try lastSession(in: root)
        print("\(file): \(String(format: "%.2f", Double(bytes) / 1e9)) GB, \(hours) takes of an hour at 100 Hz")
        print("CPU: \(cpuModel()); each command changes or reads the last take, \(id)")
        print("command                       wall s   peak MiB")
        for command in [
            ["check"], ["stats"],
            ["detect", "--model", root + "/model/m.model", "--device", "replay:" + file, "--fast"],
            ["relabel", id, "--from", "100", "--to", "200", "--as", "wave"], ["undo", id],
            ["trim", id, "--from", "10", "--to", "3000"], ["undo", id], ["discard", id, "--reason", "bench"],
            ["restore", id], ["check"],
        ] {
            // detect reads the file alone, not a recordings folder.
            let (wall, peak) = try measure(command, in: command[0] == "detect" ? nil : root)
            print(
                command[0].padding(toLength: 28, withPad: " ", startingAt: 0)
                    + String(format: "%7.2f  %9.1f", wall, peak))
        }
    }

    private func makeRecordings(in root: String) throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        guard !FileManager.default.fileExists(atPath: root + "/recordings/big-recordings.csv") else { return }
        for take in 1...hours {
            _ = try measure(
                [
                    "record", "--device", "sim", "--user", "big", "--continuous", "--as", "other", "--sim-everyday",
                    "all", "--seconds", "3600", "--fast", "--quiet", "--keep", "--append", "--seed", "\(take)",
                ], in: root)
        }
    }

    /// A small model of three gestures at the file's rate, for detect to replay the file through.
    private func makeModel(in root: String) throws {
        let model = root + "/model"
        guard !FileManager.default.fileExists(atPath: model + "/m.model") else { return }
        for user in ["ann", "ben"] {
            for gesture in ["shake", "chop", "drive"] {
                _ = try measure(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate",
                        "100", "--fast", "--quiet", "--keep", "--append", "--seed", "3",
                    ], in: model)
            }
        }
        _ = try measure(["train", "--epochs", "5", "--output", model + "/m.model"], in: model)
    }

    private func lastSession(in root: String) throws -> String {
        let output = root + "/sessions.json"
        _ = try measure(["sessions", "--json"], in: root, output: output)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        guard let last = lines.last, let id = last.firstMatch(of: /"id":"([^"]+)"/)?.1 else {
            throw ValidationError("gesture sessions listed no session in \(root)")
        }
        return String(id)
    }

    /// Runs gesture with `arguments` on the recordings in `folder` (if any) and returns its wall seconds and peak RSS
    /// in MiB, from wait4's usage of that one child; a command that fails is an error.
    private func measure(
        _ arguments: [String], in folder: String?, output: String = "/dev/null"
    ) throws -> (Double, Double) {
        let argv =
            [siblingExecutable("gesture")] + arguments + (folder.map { ["--recordings", $0 + "/recordings"] } ?? [])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let started = MonotonicClock().now()
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw ValidationError("cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = MonotonicClock().now() - started
        guard status == 0 else {
            throw ValidationError("gesture \(arguments.joined(separator: " ")) failed (status \(status))")
        }
        return (wall, Double(usage.ru_maxrss) / 1024)
    }
}
