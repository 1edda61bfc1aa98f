import Foundation
import GestureAnalysis
import GestureArchive
import GestureCore
import GestureLearning
import GestureStore

import struct SystemPackage.FilePath

/// The recordings folder as the studio's pages show and change it: the catalog's sessions with
/// what `gesture clean` finds in them, a session's rows, and the same archive calls as `relabel`,
/// `trim`, `undo`, `discard` and `restore`. Sessions are named by their IDs, looked up in the
/// catalog: nothing a page sends names a file.
public struct StudioRecordings: Sendable {
    public let folder: RecordingsFolder
    public let rules: CleaningRules

    public init(folder: RecordingsFolder, rules: CleaningRules) {
        self.folder = folder
        self.rules = rules
    }

    /// A session as the sessions table lists it.
    struct Entry: Encodable {
        var record: SessionRecord
        var findings: [Finding]
        /// The share of its rows that repeat the one before (`SessionTiming.heldShare`), when it has rows.
        var heldShare: Double?
        /// What the page warns of when the share is over `SessionTiming.heldWarning`.
        var heldWarning: String?

        init(record: SessionRecord, findings: [Finding], heldShare: Double?) {
            self.record = record
            self.findings = findings
            self.heldShare = heldShare
            guard let heldShare, heldShare > SessionTiming.heldWarning else { return }
            heldWarning =
                "\(Int((heldShare * 100).rounded())) % of its rows are held (the reading before, repeated): the device "
                + "delivered fewer readings than \(record.requestedRate.shortText) Hz; record at its rate, 60 Hz for a phone"
        }
    }

    /// What the sessions table says of each session: `clean`'s findings, and the share of held rows.
    private struct Checks {
        var findings: [SessionID: [Finding]]
        var heldShares: [SessionID: Double]

        func entry(_ record: SessionRecord) -> Entry {
            Entry(record: record, findings: findings[record.id] ?? [], heldShare: heldShares[record.id])
        }
    }

    /// A session's rows, the kept ones and those a trim moved to discarded/, in time order.
    struct Detail: Encodable {
        var entry: Entry
        /// The labels the rows name, by index.
        var labels: [String]
        /// Each label's band colour, the gestures of the whole catalog taking the palette's in turn.
        var colors: [String: String]
        /// Each row: seconds since the session started, acceleration x, y, z (g), rotation rate
        /// x, y, z (rad/s) as read, the label's index, and 1 if the row is kept, 0 if trimmed away.
        var rows: [[Double]]
    }

    /// What a page asks to change.
    enum Change: Decodable {
        case relabel(from: Double, to: Double, label: String)
        case trim(from: Double, to: Double)
        case undo, discard, restore
    }

    /// Every session of the catalog, newest first, with `clean`'s findings on the kept ones.
    func entries() throws(StudioError) -> [Entry] {
        guard FileManager.default.fileExists(atPath: folder.catalogPath.string) else { return [] }
        let records = try catalog { catalog throws(StoreError) in try catalog.sessions() }
        let checks = try checks()
        return records.reversed().map(checks.entry)
    }

    func detail(of id: String) throws(StudioError) -> Detail {
        let record = try record(id)
        let kept = try rows(of: record.id, in: folder.absolute(record.file))
        let trimmed = try rows(of: record.id, in: folder.discardedFile(for: folder.absolute(record.file)))
        let rows = (kept.map { ($0, 1.0) } + trimmed.map { ($0, 0.0) }).sorted { $0.0.timestamp < $1.0.timestamp }
        var labels: [String] = []
        let values = rows.map { row, isKept in
            let label = row.activity.rawValue
            if !labels.contains(label) { labels.append(label) }
            let motion = [row.rawAcceleration, row.rawRotationRate].flatMap { [$0.x, $0.y, $0.z] }
            return [row.timestamp] + motion + [Double(labels.firstIndex(of: label)!), isKept]
        }
        let palette: [String: String]
        do { palette = try Palette.gestureColors(in: folder) } catch { throw StudioError(error.description) }
        return Detail(
            entry: try checks().entry(record), labels: labels,
            colors: Dictionary(uniqueKeysWithValues: labels.map { ($0, palette[$0] ?? Palette.gestures.last!) }),
            rows: values)
    }

    /// The windows of the session `id`, its kept rows, as `model` classifies them.
    func windows(of id: String, by model: GestureModel) throws(StudioError) -> SessionWindows {
        let record = try record(id)
        guard let session = try dataset().sessions.first(where: { $0.id == record.id }) else {
            throw StudioError("session \(id) is discarded: restore it to classify its windows")
        }
        return try SessionWindows(session, by: model)
    }

    /// Changes a session through the archive, as the command of the same name does; returns it as it is now.
    func apply(_ change: Change, to id: String) throws(StudioError) -> SessionRecord {
        let id = try record(id).id
        do {
            let archive = try Archive(folder: folder, waiting: .never)
            switch change {
            case .relabel(let from, let to, let label):
                return try archive.relabel(id, from: from, to: to, as: try Self.label(label))
            case .trim(let from, let to): return try archive.trim(id, from: from, to: to)
            case .undo: return try archive.undo([id])[0]
            case .discard: return try archive.discard([id], reason: "discarded in gesture studio")[0]
            case .restore: return try archive.restore([id])[0]
            }
        } catch {
            throw StudioError("session \(id): \(error)")
        }
    }

    private func record(_ id: String) throws(StudioError) -> SessionRecord {
        let found = try catalog { catalog throws(StoreError) in
            try catalog.sessions(SessionFilter(ids: [SessionID(rawValue: id)]))
        }
        guard let record = found.first else { throw StudioError("no session \(id) in the catalog") }
        return record
    }

    /// `clean`'s findings and the held rows' shares of the sessions not discarded.
    private func checks() throws(StudioError) -> Checks {
        let dataset = try dataset()
        return Checks(
            findings: findings(in: dataset),
            heldShares: Dictionary(
                dataset.sessions.map { ($0.id, SessionTiming($0).heldShare) }, uniquingKeysWith: { first, _ in first }))
    }

    /// The sessions not discarded, as `gesture stats` and `clean` load them.
    func dataset() throws(StudioError) -> Dataset {
        do {
            return try DatasetLoader(folder: folder).load()
        } catch {
            throw StudioError("\(error)")
        }
    }

    func findings(in dataset: Dataset) -> [SessionID: [Finding]] {
        let bad = Cleaner(rules: rules).badSessions(in: dataset)
        return Dictionary(bad.map { ($0.session, $0.findings) }, uniquingKeysWith: { first, _ in first })
    }

    private func rows(of id: SessionID, in file: FilePath) throws(StudioError) -> [RecordingRow] {
        guard FileManager.default.fileExists(atPath: file.string) else { return [] }
        do {
            return try RecordingFile.sessions(at: file).first { $0.id == id }?.rows ?? []
        } catch {
            throw StudioError("\(error)")
        }
    }

    func catalog<T>(_ read: (Catalog) throws(StoreError) -> T) throws(StudioError) -> T {
        do {
            return try read(Catalog(path: folder.catalogPath.string))
        } catch {
            throw StudioError("\(error)")
        }
    }

    private static func label(_ text: String) throws(StudioError) -> ActivityLabel {
        do { return try ActivityLabel(text) } catch { throw StudioError("\(error)") }
    }
}
