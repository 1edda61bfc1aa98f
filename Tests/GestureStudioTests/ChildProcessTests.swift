import BrowserDriver
import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// The processes the tests start die with the test process, however it ends.
@Suite struct ChildProcessTests {
    /// The file `startsAChildAndWaitsForIt` writes its child's identifier to; set only for the test
    /// process `aTestProcessKilledMidRunTakesItsChildWithIt` starts.
    static let childFile = ProcessInfo.processInfo.environment["GESTURELAB_TEST_CHILD_FILE"]

    @Test func aTestProcessKilledMidRunTakesItsChildWithIt() async throws {
        let folder = try TemporaryFolder()
        let childFile = folder.path.appending("child").string
        let tests = Process()
        tests.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        tests.arguments = [
            "--testing-library", "swift-testing", "--filter", "ChildProcessTests/startsAChildAndWaitsForIt",
        ]
        tests.environment = ProcessInfo.processInfo.environment.merging(["GESTURELAB_TEST_CHILD_FILE": childFile]) {
            $1
        }
        tests.standardOutput = FileHandle.nullDevice
        tests.standardError = FileHandle.nullDevice
        try tests.runDyingWithTests()
        let child = try await waitFor("the child of the tests run again") {
            (try? String(contentsOfFile: childFile, encoding: .utf8)).flatMap { pid_t($0.dropLast()) }
                .flatMap { RunningProcess($0, named: "sleep") }
        }
        defer { if child.isRunning { kill(child.id, SIGKILL) } }
        kill(tests.processIdentifier, SIGKILL)
        tests.waitUntilExit()
        _ = try await waitFor("the child's end") { child.isRunning ? nil : true }
    }

    /// What `aTestProcessKilledMidRunTakesItsChildWithIt` kills the test process in.
    @Test(.enabled(if: childFile != nil)) func startsAChildAndWaitsForIt() throws {
        let file = FilePath(try #require(Self.childFile))
        _ = try runGesture(
            ["infinity"], in: file.removingLastComponent(), shell: "echo $$ >\(file)", executable: "/bin/sleep")
    }

    /// The kernel sends the parent-death signal when the thread that started a child ends, and the
    /// threads that run tests end when idle.
    @Test func aChildOutlivesTheThreadThatStartedIt() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["infinity"]
        let started = DispatchSemaphore(value: 0)
        let thread = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Result {
                        try child.runDyingWithTests()
                        return try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
                    })
                started.wait()
            }.start()
        }
        // Its death signal set, in case it were the thread's.
        let sleep = try await waitFor("sleep started") { RunningProcess(child.processIdentifier, named: "sleep") }
        started.signal()
        _ = try await waitFor("the thread's end") {
            FileManager.default.fileExists(atPath: "/proc/\(thread)") ? nil : true
        }
        // SIGKILL cannot be blocked, and a process it is on its way to never stops.
        try #require(sleep.isRunning)
        kill(sleep.id, SIGSTOP)
        _ = try await waitFor("sleep stopped") { sleep.state == "T" ? true : nil }
        kill(sleep.id, SIGKILL)
        child.waitUntilExit()
    }
}

/// A process seen running a program, told apart from a later one given its identifier by its start.
private struct RunningProcess {
    let id: pid_t
    let start: Substring

    init?(_ id: pid_t, named name: String) {
        guard (try? String(contentsOfFile: "/proc/\(id)/comm", encoding: .utf8)) == name + "\n",
            let fields = Self.fields(of: id), fields[0] != "Z"
        else { return nil }
        (self.id, start) = (id, fields[19])
    }

    /// R, S, T and so on while it exists (Z once it has ended); nil once it is gone.
    var state: Substring? { Self.fields(of: id).flatMap { $0[19] == start ? $0[0] : nil } }

    var isRunning: Bool { state.map { $0 != "Z" } ?? false }

    /// The fields of /proc/<id>/stat after the program's name, which may hold spaces: state first.
    private static func fields(of id: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(id)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ")
    }
}
