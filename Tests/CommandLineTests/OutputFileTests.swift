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
        ["export", "m.model", "--format", "coreml", "--output", "OUT"],
        ["import-model", "m.mlmodel", "--output", "OUT"],
        ["personalize", "--model", "m.model", "--user", "ann", "--output", "OUT"],
        ["balance", "--output", "OUT"],
    ]

    /// The trained folder, with the Core ML model `import-model` reads.
    private func folder(for arguments: [String]) throws -> TemporaryFolder {
        let folder = try trained
        if arguments.contains("m.mlmodel") {
            try runGesture(["export", "m.model", "--format", "coreml", "-o", "m.mlmodel"], in: folder.path).succeeded()
        }
        return folder
    }

    private func isFIFO(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
    }

    @Test(arguments: writers)
    func aPipeIsWrittenToAsItIsNeverReplaced(arguments: [String]) throws {
        let folder = try folder(for: arguments)
        let name = "out-\(UUID().uuidString)"
        let pipe = folder.path.appending(name).string
        #expect(mkfifo(pipe, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/cat")
        reader.arguments = [pipe]
        let received = folder.path.appending(name + ".received").string
        #expect(FileManager.default.createFile(atPath: received, contents: nil))
        reader.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: received))
        try reader.runDyingWithTests()
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
        let folder = try folder(for: arguments)
        let name = "folder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: folder.path.appending(name).string, withIntermediateDirectories: false)
        let result = try runGesture(arguments.map { $0 == "OUT" ? name : $0 }, in: folder.path)
        #expect(result.status == 2)
        #expect(result.error.hasSuffix("gesture: \(name) is a folder; name a file to write\n"), "\(result.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path.appending(name).string).isEmpty)
    }

    /// A character device like /dev/null, made on a tmpfs of the test's own in a private mount
    /// namespace (never a real /dev node): written to, still a device afterwards.
    @Test(
        .enabled(if: devicesOfItsOwn, "this machine lets no test make a device node of its own"),
        arguments: writers)
    func aDeviceIsWrittenToAsItIsNeverReplaced(arguments: [String]) throws {
        let folder = try folder(for: arguments)
        let disk = folder.path.appending("devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: disk.string, withIntermediateDirectories: false)
        let script = """
            set -e
            mount -t tmpfs tmpfs "$DISK"
            mknod "$DISK/null" c 1 3
            "$GESTURE" "$@"
            stat -c %F "$DISK/null"
            """
        let environment = ProcessInfo.processInfo.environment.merging(
            ["DISK": disk.string, "GESTURE": gestureExecutable]) { $1 }
        let result = try runGesture(
            ["--mount", "sh", "-c", script, "sh"] + arguments.map { $0 == "OUT" ? disk.appending("null").string : $0 },
            in: folder.path, environment: environment, executable: "/usr/bin/unshare")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasSuffix("character special file\n"), "\(result.output)")
    }
}

/// Whether a test may mount a tmpfs of its own and make a device node on it (as root).
private let devicesOfItsOwn =
    (try? runGesture(
        ["--mount", "sh", "-c", "mount -t tmpfs tmpfs /mnt && mknod /mnt/null c 1 3"], in: FilePath("/"),
        executable: "/usr/bin/unshare"))?.status == 0
