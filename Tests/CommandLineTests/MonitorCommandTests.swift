import Foundation
import GestureStore
import GestureTestSupport
import Testing

/// The readings count the terminal shows in the view's `readings N` line, if it shows one.
private func readingsShown(_ screen: String) -> Int? {
    guard let line = screen.split(separator: "\n").first(where: { $0.hasPrefix("readings ") }) else { return nil }
    return Int(line.dropFirst("readings ".count).prefix { $0.isNumber })
}

@Suite struct MonitorCommandTests {
    /// In a real terminal, the view is redrawn in place while readings come, and Ctrl-C ends it
    /// with a summary and exit code 0.
    @Test func monitorRedrawsInPlaceUntilCtrlC() throws {
        let folder = try TemporaryFolder()
        let terminal = try TerminalSession("\(gestureExecutable) monitor --device sim --rate 50", in: folder.path)
        let first = try terminal.waitForScreen("the live view") { (readingsShown($0) ?? 0) >= 20 }
        let firstCount = try #require(readingsShown(first))
        let later = try terminal.waitForScreen("the view redrawn with more readings") {
            (readingsShown($0) ?? 0) > firstCount + 20
        }
        for label in ["acceleration x", "rotation     x", "gravity roll", "readings"] {
            #expect(later.components(separatedBy: label).count == 2, "\(label) once: \(later)")
        }
        #expect(later.contains("sim (GestureLab simulated IMU)"))
        // The rate achieved on real time, whatever the machine's load: a number of Hz against the 50 asked for.
        let rate = try #require(later.firstMatch(of: /rate (\d+\.\d) Hz of 50 Hz/), "\(later)")
        #expect(Double(rate.1)! > 0)
        // A loaded machine may miss the sampler's ticks, which it counts as lost (Sampler.run).
        #expect(later.contains(/lost \d+  held 0  clipped 0/), "\(later)")
        #expect(later.contains("Ctrl-C ends"))

        try terminal.send("C-c")
        #expect(try terminal.exitCode() == 0)
        let end = try terminal.screen()
        #expect(end.contains(" readings in "), "\(end)")
        #expect(end.contains(/\d+ lost, 0 held, clipped 0/), "\(end)")
    }

    /// `record --monitor` draws the view below the prompts while it records, and records as without it.
    @Test func recordShowsTheViewBelowThePrompts() throws {
        let folder = try TemporaryFolder()
        let terminal = try TerminalSession(
            "\(gestureExecutable) record --device sim --user ann --gesture shake --takes 1 --take 1 --rest 1 --rate 50 --quiet "
                + "--keep --monitor",
            in: folder.path)
        let during = try terminal.waitForScreen("the view below the Go prompt") {
            $0.contains("» Go") && readingsShown($0) != nil
        }
        let lines = during.split(separator: "\n")
        let go = try #require(lines.firstIndex { $0.hasPrefix("» Go") })
        let header = try #require(lines.firstIndex { $0.hasPrefix("sim (GestureLab simulated IMU)") })
        #expect(go < header, "\(during)")
        #expect(!during.contains("Ctrl-C ends"))
        #expect(try terminal.exitCode() == 0)
        let sessions = try Catalog(path: folder.recordings.catalogPath.string).sessions()
        #expect(sessions.map(\.status) == [.kept])
        #expect(sessions.first?.sampleCount == 325)
    }

    /// Not on a terminal: one plain line a second, then the summary.
    @Test func plainLinesWhenNotOnATerminal() throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(
            ["monitor", "--device", "sim", "--seconds", "3", "--fast", "--rate", "25"], in: folder.path
        )
        .succeeded()
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 4, "\(result.output)")
        #expect(lines.prefix(3).map { $0.prefix(6) } == ["0.0 s ", "1.0 s ", "2.0 s "])
        #expect(lines[1].contains("rate 25.0 Hz") && lines[1].contains("lost 0  held 0  clipped 0"))
        #expect(!result.output.contains("\u{1B}["))
        #expect(lines[3] == "75 readings in 3.0 s, 0 lost, 0 held, clipped 0")
    }

    /// A replay is monitored to its end: every row is a reading, and its device's range is unknown.
    @Test func aReplayIsMonitoredToItsEnd() throws {
        let folder = try TemporaryFolder()
        try runGesture(
            [
                "record", "--device", "sim", "--user", "ann", "--gesture", "shake", "--takes", "1", "--fast", "--quiet",
                "--keep",
            ],
            in: folder.path
        ).succeeded()
        let rows = try #require(try Catalog(path: folder.recordings.catalogPath.string).sessions().first?.sampleCount)
        let result = try runGesture(
            ["monitor", "--device", "replay:recordings/ann-recordings.csv", "--fast"], in: folder.path
        ).succeeded()
        let summary = try #require(result.output.split(separator: "\n").last)
        #expect(summary.hasPrefix("\(rows) readings in "), "\(result.output)")
        #expect(summary.hasSuffix("0 lost, 0 held, clipped: range unknown"))
    }

    @Test func badDevicesAndDurationsAreOneLineErrors() throws {
        let folder = try TemporaryFolder()
        let missing = try runGesture(["monitor", "--device", "nosuch"], in: folder.path)
        #expect(missing.status == 2)
        #expect(missing.error.hasPrefix("gesture: nosuch: no such device"), "\(missing.error)")
        #expect(missing.error.split(separator: "\n").count == 1)
        let zero = try runGesture(["monitor", "--device", "sim", "--seconds", "0"], in: folder.path)
        #expect(zero.status == 2)
        #expect(zero.error == "gesture: --seconds 0 is not a number of seconds from 0.001 up\n")
    }
}
