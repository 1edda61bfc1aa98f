import Foundation

/// The standard output of `executable arguments`, which must exit 0.
func peerOutput(of executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [executable] + arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw PeerFailure(command: executable) }
    return String(decoding: data, as: UTF8.self)
}

/// One of the scripts in Peers/.
func peerScript(_ name: String) -> URL { Bundle.module.resourceURL!.appendingPathComponent("Peers/\(name)") }

struct PeerFailure: Error, CustomStringConvertible {
    var command: String
    var description: String { "\(command) failed" }
}
