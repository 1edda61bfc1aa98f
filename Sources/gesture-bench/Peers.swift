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

/// The first of `pythons` that imports `module`, and the module's version; nil if none does.
func firstPython(among pythons: [String], importing module: String) -> (python: String, version: String)? {
    for python in pythons {
        let version = try? peerOutput(of: python, ["-c", "import \(module); print(\(module).__version__)"])
        if let version { return (python, version.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
    return nil
}

/// One of the scripts in Peers/.
func peerScript(_ name: String) -> URL { Bundle.module.resourceURL!.appendingPathComponent("Peers/\(name)") }

struct PeerFailure: Error, CustomStringConvertible {
    var command: String
    var description: String { "\(command) failed" }
}
