import GestureCore
import Testing

@Suite struct ManifestTests {
    @Test func textReadsBackAsTheSameManifest() throws {
        let manifest = Manifest(
            recordings: "my recordings", rate: 40,
            entries: [
                .init(part: .train, session: SessionID(rawValue: "2026-11-21T08:33:37.685Z-1")),
                .init(part: .test, session: SessionID(rawValue: "seglearn-watch:s01:rec003")),
                .init(part: .train, session: SessionID(rawValue: "2026-11-21T08:33:37.685Z-1")),
            ])
        #expect(manifest.text.hasPrefix("gesturelab-manifest 1\nrecordings my recordings\nrate 40.0\ntrain 2026"))
        let back = try Manifest(text: "# a comment\n\n" + manifest.text, file: "m.txt")
        #expect(back == manifest)
        #expect(back.sessions(in: .train).count == 2)
        #expect(back.sessions(in: .test) == [SessionID(rawValue: "seglearn-watch:s01:rec003")])
        #expect(back.sessions(in: .validation).isEmpty)
    }

    @Test(arguments: [
        ("train a-1\n", 1, "first line"),
        ("gesturelab-manifest 1\ntrain a-1\nholdout b-2\n", 3, "unknown keyword 'holdout'"),
        ("gesturelab-manifest 1\nrate fast\n", 2, "rate 'fast'"),
        ("gesturelab-manifest 1\ntrain\n", 2, "expected '<keyword> <value>'"),
    ])
    func badLinesAreErrorsNamingFileAndLine(text: String, line: Int, reason: String) throws {
        let error = try #require(throws: CSVError.self) { try Manifest(text: text, file: "m.txt") }
        #expect(error.file == "m.txt")
        #expect(error.line == line)
        #expect(error.reason.contains(reason))
    }
}
