import Foundation

/// A build or run on a target that failed: which program, and what it printed.
public struct CTargetError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }

    /// `body`'s file error, as one of these.
    static func wrap<T>(_ body: () throws -> T) throws(CTargetError) -> T {
        do { return try body() } catch { throw CTargetError("\(error)") }
    }
}

/// A child process, its standard output and error in files: a pipe another process inherits meanwhile
/// would keep the end of output from coming.
struct Command {
    let executable: String
    let arguments: [String]
    /// A file for standard input; none: an empty one.
    var input: String?

    init(_ executable: String, _ arguments: [String], input: String? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.input = input
    }

    /// Runs it in `folder`: what it printed, or an error with what it printed to standard error.
    func run(in folder: String) throws(CTargetError) -> String {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let (status, output, error) = try CTargetError.wrap { try launch(in: folder) }
        guard status == 0 else {
            throw CTargetError("\(name) \(arguments.joined(separator: " ")) exited \(status): \(error)")
        }
        return output
    }

    private func launch(in folder: String) throws -> (Int32, String, String) {
        let files = FileManager.default.temporaryDirectory.appendingPathComponent("c-target-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let output = files.appendingPathComponent("out"), error = files.appendingPathComponent("err")
        for file in [output, error] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: error)
        process.standardInput =
            try input.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) }
            ?? FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: try Data(contentsOf: output), as: UTF8.self),
            String(decoding: try Data(contentsOf: error), as: UTF8.self)
        )
    }
}
