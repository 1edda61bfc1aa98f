import Foundation

import struct SystemPackage.FilePath

/// A command running in a real terminal: a tmux server and session of its own, read with
/// capture-pane and typed into with send-keys. The command's exit code shows on the screen as
/// `exit=N` once it ends; the server goes when the value does.
public final class TerminalSession {
    private let name = "gesturelab-test-\(UUID().uuidString.prefix(8))"
    private let socket: String
    private let folder: FilePath
    /// The server, in the foreground as a child of the tests, so that it dies with them; the
    /// command then gets SIGHUP as its terminal goes.
    private let server = Process()

    public init(_ command: String, in folder: FilePath, columns: Int = 100, rows: Int = 30) throws {
        self.folder = folder
        socket = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        server.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        server.arguments = ["-D", "-S", socket]
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.runDyingWithTests()
        try waitForServer()
        try tmux(
            "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "-c", folder.string,
            "\(command); echo exit=$?; sleep 600")
    }

    /// What the terminal shows now, a line per row.
    public func screen() throws -> String { try tmux("capture-pane", "-p") }

    /// Types keys as tmux names them: `C-c`, `Enter`, or plain text.
    public func send(_ keys: String...) throws { try tmux(["send-keys"] + keys) }

    /// Reads the screen until `condition` holds of it, and returns that screen. A state that never
    /// comes fails the test after `limit` seconds, a bound against hanging rather than a timing.
    @discardableResult
    public func waitForScreen(
        limit: Double = 120, _ what: String, until condition: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let shown = try screen()
            if condition(shown) { return shown }
            guard Date() < deadline else { throw TerminalSessionError(waitingFor: what, screen: shown) }
            usleep(50_000)
        }
    }

    /// The command's exit code, once the screen shows it.
    public func exitCode() throws -> Int32 {
        let shown = try waitForScreen("the command's end") { $0.contains("exit=") }
        let code = shown.components(separatedBy: "exit=")[1].prefix { $0.isNumber }
        return Int32(code)!
    }

    deinit {
        _ = try? tmux("kill-server")
        server.waitUntilExit()
    }

    /// Waits until the server answers; a client that came sooner would start a server of its own.
    private func waitForServer(limit: Double = 120) throws {
        let deadline = Date().addingTimeInterval(limit)
        while (try? tmux("show-options", "-g", "exit-empty")) == nil {
            guard server.isRunning, Date() < deadline else {
                throw TerminalSessionError(waitingFor: "the tmux server at \(socket)", screen: "")
            }
            usleep(20_000)
        }
    }

    /// Runs tmux with only the standard descriptors: the server it may start must hold none of this
    /// process's others, or Foundation's `Process` waits for them to close.
    @discardableResult
    private func tmux(_ arguments: String...) throws -> String { try tmux(arguments) }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let output = folder.appending(".tmux-\(name).out").string
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                "-c",
                #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; ((fd > 2)) && eval "exec $fd>&-"; done; exec tmux "$@" >"$0""#,
                output, "-S", socket,
            ] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(atPath: output) }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw TerminalSessionError(waitingFor: "tmux \(arguments.joined(separator: " "))", screen: text)
        }
        return text
    }
}

public struct TerminalSessionError: Error, CustomStringConvertible {
    public var waitingFor: String
    public var screen: String
    public var description: String { "never saw \(waitingFor); the screen:\n\(screen)" }
}
