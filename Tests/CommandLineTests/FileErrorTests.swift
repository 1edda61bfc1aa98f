import Foundation
import GestureTestSupport
import Testing

/// A folder or file the system will not give says so in the system's words, in one line, never
/// as "no rows" or a dump of Foundation's error domain.
@Suite struct FileErrorTests {
    private func expectOneLine(
        _ result: ProcessResult, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status != 0, sourceLocation: sourceLocation)
        #expect(result.error == "gesture: \(message)\n", sourceLocation: sourceLocation)
    }

    @Test func anUnreadableRecordingsFolderSaysPermissionDenied() throws {
        let folder = try TemporaryFolder()
        let recordings = folder.path.appending("recordings").string
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: false)
        #expect(chmod(recordings, 0) == 0)
        defer { chmod(recordings, 0o755) }
        // Root reads any folder; without the capabilities to override permissions it is refused as anyone is.
        let result =
            getuid() == 0
            ? try runGesture(
                ["--bounding-set", "-dac_override,-dac_read_search", gestureExecutable, "stats"], in: folder.path,
                executable: "/usr/bin/setpriv")
            : try runGesture(["stats"], in: folder.path)
        expectOneLine(result, "cannot read the folder recordings: Permission denied")
    }

    @Test func aRecordingsFileWhereTheFolderShouldBeIsNamed() throws {
        let folder = try TemporaryFolder()
        #expect(FileManager.default.createFile(atPath: folder.path.appending("recordings").string, contents: nil))
        expectOneLine(try runGesture(["stats"], in: folder.path), "recordings is a file, not a folder")
    }

    @Test func aMissingManifestSaysNoSuchFile() throws {
        let folder = try TemporaryFolder()
        expectOneLine(
            try runGesture(["train", "--manifest", "missing.txt"], in: folder.path),
            "cannot read the manifest missing.txt: No such file or directory")
    }
}
