import Foundation

import struct SystemPackage.FilePath

/// An executable the package builds: from the folder `GESTURE_EXECUTABLES` names when given (CI
/// tests the release build's), else from the folder the tests were built into.
public func builtExecutable(_ name: String) -> String {
    let folder =
        ProcessInfo.processInfo.environment["GESTURE_EXECUTABLES"].map(URL.init(fileURLWithPath:))
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return folder.appendingPathComponent(name).path
}

/// The `gesture` executable built beside this test bundle.
public let gestureExecutable = builtExecutable("gesture")

/// A finished child process: its exit code or signal, and what it printed.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var output: String
    public var error: String

    /// Itself if the process exited 0; otherwise an error that fails the test with what it printed.
    @discardableResult
    public func succeeded() throws -> ProcessResult {
        guard status == 0 else { throw ProcessFailure(result: self) }
        return self
    }
}

/// A child process that should have exited 0 and did not.
public struct ProcessFailure: Error, CustomStringConvertible {
    public var result: ProcessResult
    public var description: String { "exit \(result.status): \(result.error)" }
}

/// Runs `gesture` (or another of the package's executables) with the arguments in `folder`, standard
/// input `input` or else closed.
public func runGesture(
    _ arguments: [String], in folder: FilePath, environment: [String: String]? = nil,
    shell prefix: String? = nil, executable: String = gestureExecutable, input: String? = nil
) throws -> ProcessResult {
    let process = Process()
    if let prefix {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(prefix); exec \"$0\" \"$@\"", executable] + arguments
    } else {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    }
    process.currentDirectoryURL = URL(fileURLWithPath: folder.string)
    if let environment { process.environment = environment }
    // Files, not pipes: a process another test starts meanwhile inherits the pipes' ends open, and
    // one that lives long (a server, a browser) would keep the end of output from coming.
    let files = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let outputFile = files.appendingPathComponent("out")
    let errorFile = files.appendingPathComponent("err")
    let inputFile = files.appendingPathComponent("in")
    for file in [outputFile, errorFile] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
    _ = FileManager.default.createFile(atPath: inputFile.path, contents: Data((input ?? "").utf8))
    process.standardOutput = try FileHandle(forWritingTo: outputFile)
    process.standardError = try FileHandle(forWritingTo: errorFile)
    process.standardInput = input == nil ? FileHandle.nullDevice : try FileHandle(forReadingFrom: inputFile)
    try process.runDyingWithTests()
    process.waitUntilExit()
    let out = try Data(contentsOf: outputFile)
    let err = try Data(contentsOf: errorFile)
    return ProcessResult(
        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
        error: String(decoding: err, as: UTF8.self))
}

extension Process {
    /// Starts the process so that it dies with the test process however that ends, a crash or SIGKILL
    /// included: through setpriv, which asks the kernel for SIGKILL when its parent goes and then
    /// executes the program in its place, so the process keeps its identifier and process group.
    public func runDyingWithTests() throws {
        arguments = ["--pdeathsig", "KILL", "--", executableURL!.path] + (arguments ?? [])
        executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        try launcher.launch(run)
    }
}

/// The one thread the tests start processes from. The kernel sends the parent-death signal when the
/// thread that started a child ends, not its process, and the threads of Dispatch and Swift's
/// concurrency end when idle; this one lasts as long as the test process.
private final class Launcher: @unchecked Sendable {
    private let condition = NSCondition()
    private var launches: [() -> Void] = []

    init() {
        let thread = Thread { [self] in
            // A child starts with the blocked signals of the thread that started it, and Dispatch's
            // threads, which may have started this one, block nearly all: children start as from a
            // shell instead.
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            while true { nextLaunch()() }
        }
        thread.start()
    }

    /// Runs `start` on the launching thread, and returns once it has.
    func launch(_ start: @escaping () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        var outcome = Result<Void, any Error>.success(())
        condition.lock()
        launches.append {
            outcome = Result(catching: start)
            done.signal()
        }
        condition.signal()
        condition.unlock()
        done.wait()
        try outcome.get()
    }

    private func nextLaunch() -> () -> Void {
        condition.lock()
        defer { condition.unlock() }
        while launches.isEmpty { condition.wait() }
        return launches.removeFirst()
    }
}

private let launcher = Launcher()
