import Foundation

import struct SystemPackage.FilePath

/// An executable the package builds, from the folder the tests were built into.
public func builtExecutable(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
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
    try process.run()
    process.waitUntilExit()
    let out = try Data(contentsOf: outputFile)
    let err = try Data(contentsOf: errorFile)
    return ProcessResult(
        status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
        error: String(decoding: err, as: UTF8.self))
}
