import BrowserDriver
import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// `gesture` running in the background, what it prints going to files in `folder`; stopped when the
/// value goes, if it still runs.
final class RunningGesture {
    private let process = Process()
    private let outputFile: String
    /// Its standard error, for waiting on it from other tasks.
    let errorOutput: ErrorOutput

    /// - Parameter environment: variables set for it beside the tests' own.
    init(_ arguments: [String], in folder: FilePath, environment: [String: String] = [:]) throws {
        outputFile = folder.appending("gesture.out").string
        let errorFile = folder.appending("gesture.err").string
        errorOutput = ErrorOutput(file: errorFile)
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: folder.string)
        process.standardOutput = FileHandle(forWritingAtPath: outputFile)
        process.standardError = FileHandle(forWritingAtPath: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.runDyingWithTests()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }
    var errors: String { errorOutput.text }

    /// The first address it printed on either output.
    func address() async throws -> String {
        try await waitFor("an address printed") {
            (output + errors).firstMatch(of: /https?:\/\/[^ \n]+/).map { String($0.0) }
        }
    }

    func exitCode() async throws -> Int32 {
        try await waitFor("gesture's end") { process.isRunning ? nil : process.terminationStatus }
    }

    func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// The memory it holds now, in KiB (VmRSS in its /proc status).
    func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        return try #require(status.firstMatch(of: /VmRSS:\s+(\d+) kB/).flatMap { Int($0.1) })
    }
}

/// What a background process wrote to standard error so far.
struct ErrorOutput: Sendable {
    let file: String

    var text: String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
}
