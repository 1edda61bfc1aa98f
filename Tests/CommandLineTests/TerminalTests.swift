import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// Runs `command` with `sh` in a real terminal (a tmux session of its own, 120 columns) and returns
/// every byte it drew there, once it has ended.
private func drawnInTerminal(_ command: String, in folder: FilePath) throws -> String {
    // tmux's server must not hold this process's pipes, hence the redirections; the command waits
    // for `go`, so that every byte it draws is logged, and the server is stopped only once the log
    // holds the line drawn after it (stopping it ends the pipe's `cat`, which may not have caught up).
    let script = """
        set -e
        socket=gesturelab-$$
        tmux -L "$socket" new-session -d -x 120 -y 20 \
            "while [ ! -e go ]; do sleep 0.05; done; $0; echo drawn-to-the-end; sleep 600" </dev/null >/dev/null 2>&1
        tmux -L "$socket" pipe-pane -o 'cat >> terminal.log' </dev/null >/dev/null 2>&1
        touch go
        until grep -q drawn-to-the-end terminal.log 2>/dev/null; do sleep 0.05; done
        tmux -L "$socket" kill-server </dev/null >/dev/null 2>&1 || true
        cat terminal.log
        """
    return try runGesture(["-c", script, command], in: folder, executable: "/bin/sh").succeeded().output
}

@Suite struct TerminalTests {
    /// A file large enough to be read in two blocks: progress is drawn while it is read, on a
    /// terminal only, and cleared before the summary.
    @Test func importShowsProgressOnATerminalOnly() throws {
        let folder = try TemporaryFolder()
        var text = "who,take,what,x,y,z,gx,gy,gz\n"
        for k in 0..<120_000 { text += "ann,\(k / 1000),wave,0,\(Double(k % 1000) / 1000),1,0,0,0\n" }
        try text.write(toFile: folder.path.appending("big.csv").string, atomically: true, encoding: .utf8)
        let arguments = [
            "import", "big.csv", "--sample-rate", "50",
            "--map", "user=who,session=take,label=what,accelX=x,accelY=y,accelZ=z,gyroX=gx,gyroY=gy,gyroZ=gz",
        ]
        let drawn = try drawnInTerminal(
            "GESTURE_PROGRESS_DELAY=0 \(gestureExecutable) \(arguments.joined(separator: " "))", in: folder.path)
        let progress = try #require(drawn.range(of: "reading big.csv: "), "\(drawn.prefix(500))")
        let summary = try #require(drawn.range(of: "imported 120 sessions"), "\(drawn.suffix(500))")
        #expect(progress.upperBound < summary.lowerBound)
        #expect(drawn[progress.upperBound..<summary.lowerBound].contains("\r\u{1B}[K"))

        let again = try TemporaryFolder()
        try FileManager.default.copyItem(
            atPath: folder.path.appending("big.csv").string, toPath: again.path.appending("big.csv").string)
        var environment = ProcessInfo.processInfo.environment
        environment["GESTURE_PROGRESS_DELAY"] = "0"
        let piped = try runGesture(arguments, in: again.path, environment: environment).succeeded()
        #expect(!piped.error.contains("reading"))
    }

    /// Every command that reads the recordings draws how far it has read, on a terminal.
    @Test func readingTheRecordingsShowsProgressOnATerminalOnly() throws {
        let folder = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "2", "--fast", "--quiet",
                "--keep",
            ],
            in: folder.path
        ).succeeded()
        let drawn = try drawnInTerminal("GESTURE_PROGRESS_DELAY=0 \(gestureExecutable) stats", in: folder.path)
        let progress = try #require(drawn.range(of: "reading recordings: 100 %"), "\(drawn.prefix(500))")
        let table = try #require(drawn.range(of: "Sessions per gesture and user"), "\(drawn.suffix(500))")
        #expect(progress.upperBound < table.lowerBound)
        var environment = ProcessInfo.processInfo.environment
        environment["GESTURE_PROGRESS_DELAY"] = "0"
        #expect(
            try !runGesture(["stats"], in: folder.path, environment: environment).succeeded().error.contains("reading"))
    }
}
