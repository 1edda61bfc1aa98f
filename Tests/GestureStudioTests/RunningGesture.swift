import BrowserDriver
import Foundation
import GestureTestSupport

import struct SystemPackage.FilePath

/// `gesture` running in the background, what it prints going to files in `folder`; stopped when the
/// value goes, if it still runs.
final class RunningGesture {
    private let process = Process()
    private let outputFile: String
    /// Where its standard error goes, for waiting on it from other tasks.
    let errorFile: String

    init(_ arguments: [String], in folder: FilePath) throws {
        outputFile = folder.appending("gesture.out").string
        errorFile = folder.appending("gesture.err").string
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.executableURL = URL(fileURLWithPath: gestureExecutable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder.string)
        process.standardOutput = FileHandle(forWritingAtPath: outputFile)
        process.standardError = FileHandle(forWritingAtPath: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var output: String { (try? String(contentsOfFile: outputFile, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "" }

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
}
