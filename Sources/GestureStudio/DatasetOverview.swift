import Foundation
import GestureAnalysis
import GestureCore
import GestureStore

/// The recordings folder at a glance, as the dataset view shows it: what `gesture stats` counts
/// per user and gesture, each session with `clean`'s findings and a thumbnail of its acceleration,
/// and the part each manifest in the folder gives each session. It only reads.
struct DatasetOverview: Encodable {
    struct Session: Encodable {
        var summary: DatasetStats.SessionSummary
        var take: Int?
        var findings: [Finding]
        /// An SVG of its acceleration over time, its gestures' bands coloured as `gesture plot` colours them.
        var thumbnail: String
    }

    /// A manifest in the recordings folder: the parts it names each session for, in its order
    /// (a session may be named more than once), or why it could not be read.
    struct ManifestParts: Encodable {
        var file: String
        var parts: [String: [String]]
        var error: String?
    }

    var cells: [DatasetStats.CellTotals]
    var sessions: [Session]
    var manifests: [ManifestParts]
    /// The share of held rows above which a cell is marked, as `gesture stats` warns.
    var heldWarning = SessionTiming.heldWarning

    static let thumbnailSize = (width: 240.0, height: 64.0)
}

extension StudioRecordings {
    func overview() throws(StudioError) -> DatasetOverview {
        guard FileManager.default.fileExists(atPath: folder.catalogPath.string) else {
            return DatasetOverview(cells: [], sessions: [], manifests: [])
        }
        let dataset = try dataset()
        let stats = DatasetStats(dataset)
        let findings = findings(in: dataset)
        let records = try catalog { catalog throws(StoreError) in try catalog.sessions() }
        let takes = Dictionary(records.map { ($0.id, $0.take) }, uniquingKeysWith: { first, _ in first })
        let plot: GesturePlot
        do {
            plot = GesturePlot(features: Feature.rawAcceleration, gestureColors: try Palette.gestureColors(in: folder))
        } catch {
            throw StudioError(error.description)
        }
        let sessions = zip(dataset.sessions, stats.sessions).map { session, summary in
            DatasetOverview.Session(
                summary: summary, take: takes[session.id], findings: findings[session.id] ?? [],
                thumbnail: Self.thumbnail(of: session, plot: plot))
        }
        return DatasetOverview(cells: stats.cellTotals, sessions: sessions, manifests: manifests())
    }

    private static func thumbnail(of session: RecordedSession, plot: GesturePlot) -> String {
        // A plot of whole sessions, not a slice, throws nothing.
        let chart = (try? plot.panels(for: Dataset(sessions: [session])))?.charts.first
        let size = DatasetOverview.thumbnailSize
        return chart?.thumbnail(width: size.width, height: size.height).text ?? ""
    }

    /// The files at the top of the recordings folder that start as a manifest does, by name.
    private func manifests() -> [DatasetOverview.ManifestParts] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.root.string)) ?? []
        return names.sorted().filter { isManifest(folder.root.appending($0).string) }.map { name in
            do {
                let manifest = try Manifest.read(folder.root.appending(name).string)
                let parts = Dictionary(grouping: manifest.entries, by: \.session.rawValue).mapValues {
                    $0.map(\.part.rawValue)
                }
                return DatasetOverview.ManifestParts(file: name, parts: parts)
            } catch {
                return DatasetOverview.ManifestParts(file: name, parts: [:], error: "\(error)")
            }
        }
    }

    func isManifest(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
            let file = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? file.close() }
        let start = (try? file.read(upToCount: Manifest.formatLine.utf8.count)) ?? Data()
        return start == Data(Manifest.formatLine.utf8)
    }
}
