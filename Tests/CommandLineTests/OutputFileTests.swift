import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// Every command that writes a file writes into a pipe or a device as it is, never replacing it
/// with a file (as root, `--output /dev/null` once turned /dev/null into a file), and refuses a
/// folder before writing anything.
@Suite struct OutputFileTests {
    static let writers: [[String]] = [
        ["train", "--epochs", "1", "--output", "OUT"],
        ["evaluate", "m.model", "--recordings", "unseen", "--confusion", "OUT"],
        ["plot", "--panels", "1", "-o", "OUT"],
        ["split", "--by", "user", "-o", "OUT"],
        ["export", "m.model", "--format", "onnx", "--output", "OUT"],
    ]

    private func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    @Test(arguments: writers)
    func aPipeIsWrittenToAsItIsNeverReplaced(arguments: [String]) throws {
        let folder = try trained
        let name = "out-\(UUID().uuidString)"
        let pipe = folder.path.appending(name).string
        #expect(mkfifo(pipe, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [pipe]
        let received = folder.path.appending(name + ".received").string
        #expect(FileManager.default.createFile(atPath: received, contents: nil))
        reader.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: received))
        try reader.run()
        let result = try runGesture(arguments.map { $0 == "OUT" ? name : $0 }, in: folder.path)
        // A command that failed before opening the pipe leaves cat waiting for a writer: be one.
        let writer = open(pipe, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        reader.waitUntilExit()
        #expect(result.status == 0, "\(result.error)")
        #expect(isFIFO(pipe))
        #expect((try FileManager.default.attributesOfItem(atPath: received)[.size] as? Int ?? 0) > 0)
    }

    @Test(arguments: writers)
    func aFolderIsRefusedBeforeAnythingIsWritten(arguments: [String]) throws {
        let folder = try trained
        let name = "folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: folder.path.appending(name).string, withIntermediateDirectories: false)
        let result = try runGesture(arguments.map { $0 == "OUT" ? name : $0 }, in: folder.path)
        #expect(result.status == 2)
        #expect(result.error.hasSuffix("gesture: \(name) is a folder; name a file to write\n"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path.appending(name).string).isEmpty)
    }
}
