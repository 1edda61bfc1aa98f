import BrowserDriver
import Foundation
import GestureCore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// The studio's dataset view in headless Chromium: its totals per user and gesture are `gesture
/// stats`'s, its parts those of the manifest `gesture split` wrote into the recordings folder, the
/// findings on each session `gesture clean`'s, choosing a user or a gesture with the pointer narrows
/// the table and the thumbnails, and looking changes nothing.
@Suite struct DatasetViewTests {
    /// ann at 50 Hz and ben at 40 Hz, two takes each of shake and chop, ben's first chop with a dead
    /// axis; and a manifest split by session, in the recordings folder.
    static func record(into folder: TemporaryFolder) throws {
        for (user, rate) in [("ann", "50"), ("ben", "40")] {
            for gesture in ["shake", "chop"] {
                try runGesture(
                    [
                        "record", "--device", "sim", "--user", user, "--gesture", gesture, "--takes", "2", "--rate",
                        rate, "--fast", "--quiet", "--keep", "--append", "--seed", "3", "--sim-faults",
                        user == "ben" && gesture == "chop" ? "dead-axis@1" : "",
                    ], in: folder.path
                ).succeeded()
            }
        }
        try runGesture(
            ["split", "--by", "session", "--validation", "0.25", "--test", "0.25", "-o", "recordings/split.txt"],
            in: folder.path
        ).succeeded()
    }

    @Test func totalsAreStatsPartsTheManifestsFindingsCleansAndFiltersNarrow() async throws {
        let studio = try await StudioViewsTests.Studio(prepare: Self.record)
        let (filesBefore, catalogBefore) = (try contents(of: studio.folder.recordings.root), try studio.sessions())
        try await studio.show("dataset")
        try await studio.page.waitUntil(
            "the dataset shown", "studio.datasetShown !== null && studio.datasetShown.sessions.length === 8")
        try await studio.page.waitUntil(
            "the thumbnails drawn",
            "[...document.querySelectorAll('.thumbnail img')].every(i => i.complete && i.naturalWidth > 0)")
        try await studio.screenshot("dataset")

        let stats = try jsonObject(try runGesture(["stats", "--json"], in: studio.folder.path).succeeded().output)
        let sessions = try #require(stats["sessions"] as? [[String: Any]])
        let manifest = try Manifest(
            text: String(contentsOfFile: studio.folder.recordings.root.appending("split.txt").string, encoding: .utf8),
            file: "split.txt")
        let cells = Dictionary(grouping: sessions) { [$0["user"] as! String, $0["gesture"] as! String] }
        #expect(cells.count == 4)
        for (cell, group) in cells {
            let shown = try #require(
                try await studio.page.evaluate(
                    "[...document.querySelectorAll('#dataset-cells tr[data-user=\(cell[0])][data-gesture=\(cell[1])] td')]"
                        + ".map(td => td.textContent)") as? [String])
            try #require(shown.count == 11, "\(cell): \(shown)")
            let samples = group.map { $0["samples"] as! Int }
            let timing = group.map { $0["timing"] as! [String: Any] }
            let seconds = group.map { $0["seconds"] as! Double }.reduce(0, +)
            let intervals = samples.map { $0 - 1 }.reduce(0, +)
            let held = zip(timing, samples).map { ($0["heldShare"] as! Double) * Double($1 - 1) }.reduce(0, +)
            let rates = Set(timing.map { $0["nominalRate"] as! Double }).sorted().map { String(format: "%g", $0) }
            #expect(shown[2] == "\(group.count)", "\(cell) takes")
            #expect(shown[3] == String(format: "%.2f", seconds / 60), "\(cell) minutes")
            #expect(shown[4] == rates.joined(separator: ", ") && rates == [cell[0] == "ann" ? "50" : "40"])
            #expect(shown[5] == String(format: "%.1f", Double(intervals) / seconds), "\(cell) achieved rate")
            #expect(shown[6] == String(format: "%.1f %%", held / Double(intervals) * 100), "\(cell) held")
            let ids = Set(group.map { $0["session"] as! String })
            for (column, part) in zip(7..., [Manifest.Part.train, .validation, .test]) {
                let named = manifest.sessions(in: part).filter { ids.contains($0.rawValue) }
                #expect(shown[column] == "\(named.count)", "\(cell) \(part)")
            }
        }

        let bad = try runGesture(["clean", "--json"], in: studio.folder.path).succeeded().output
            .split(separator: "\n").map { try jsonObject(String($0)) }
        let deadAxis = try #require(
            sessions.first { $0["user"] as? String == "ben" && $0["gesture"] as? String == "chop" }?["session"]
                as? String)
        #expect(bad.contains { $0["session"] as? String == deadAxis }, "the dead axis was not found")
        for session in sessions.map({ $0["session"] as! String }) {
            let kinds =
                bad.first { $0["session"] as? String == session }.map {
                    ($0["findings"] as! [[String: Any]]).map { $0["kind"] as! String }
                } ?? []
            #expect(try await texts(".thumbnail[data-id=\"\(session)\"] .finding", on: studio.page) == kinds)
            let parts = manifest.entries.filter { $0.session.rawValue == session }.map(\.part.rawValue)
            #expect(try await texts(".thumbnail[data-id=\"\(session)\"] .part", on: studio.page) == parts)
        }

        try await studio.page.click("#dataset-users button[data-value=ben]")
        try await shows(cells: 2, sessions: 4, on: studio.page)
        try await studio.page.click("#dataset-gestures button[data-value=chop]")
        try await shows(cells: 1, sessions: 2, on: studio.page)
        #expect(try await texts("#dataset-cells td:first-child", on: studio.page) == ["ben"])
        #expect(!(try await texts(".thumbnail .finding", on: studio.page)).isEmpty, "the dead axis's finding")
        try await studio.screenshot("dataset-filtered")
        try await studio.page.click("#dataset-users button[data-value=\"\"]")
        try await shows(cells: 2, sessions: 4, on: studio.page)
        #expect(Set(try await texts("#dataset-cells td:first-child", on: studio.page)) == ["ann", "ben"])

        #expect(try contents(of: studio.folder.recordings.root) == filesBefore, "the view changed a file")
        #expect(try studio.sessions() == catalogBefore, "the view changed the catalog")

        // A manifest that cannot be read says where, and gives no parts.
        try "gesturelab-manifest 1\ntrian \(deadAxis)\n".write(
            toFile: studio.folder.recordings.root.appending("broken.txt").string, atomically: true, encoding: .utf8)
        try await studio.show("sessions")
        try await studio.show("dataset")
        try await studio.page.waitUntil("two manifests", "studio.dataset.manifests.length === 2")
        _ = try await studio.page.evaluate(
            "document.getElementById('dataset-manifest').value = '0'; showDataset(); true")
        let status = try #require(
            try await studio.page.evaluate("document.getElementById('dataset-status').textContent") as? String)
        #expect(status.contains("broken.txt:2: unknown keyword 'trian'"), "\(status)")
        #expect(Set(try await texts("#dataset-cells td.train, #dataset-cells td.test", on: studio.page)) == [""])
    }

    /// Waits until the table has `cells` rows and `sessions` thumbnails.
    private func shows(cells: Int, sessions: Int, on page: BrowserPage) async throws {
        try await page.waitUntil(
            "\(cells) cells and \(sessions) thumbnails",
            "document.querySelectorAll('#dataset-cells tr').length === \(cells) && "
                + "document.querySelectorAll('.thumbnail').length === \(sessions)")
    }

    private func texts(_ selector: String, on page: BrowserPage) async throws -> [String] {
        try #require(
            try await page.evaluate("[...document.querySelectorAll('\(selector)')].map(e => e.textContent)")
                as? [String])
    }

    private func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every file of the folder and its subfolders, by path, with its bytes; the catalog's database,
    /// which reading may checkpoint, and the studio's certificate are left out.
    private func contents(of folder: FilePath) throws -> [String: Data] {
        let paths = FileManager.default.subpaths(atPath: folder.string) ?? []
        return try Dictionary(
            uniqueKeysWithValues: paths.filter { !$0.hasPrefix(".studio") && !$0.hasPrefix("catalog.sqlite") }
                .compactMap { path in
                    var isFolder: ObjCBool = false
                    let full = folder.appending(path).string
                    guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue
                    else {
                        return nil
                    }
                    return (path, try Data(contentsOf: URL(fileURLWithPath: full)))
                })
    }
}
