import Foundation
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

/// Loads a recordings folder into a dataset: every CSV directly in it, in GestureLab's or the
/// book's format, with the catalog's gesture, device and rate for the sessions it knows.
/// Discarded sessions (in recordings/discarded/) are left out unless asked for. Reads only.
public struct DatasetLoader: Sendable {
    public var folder: RecordingsFolder
    public var includeDiscarded: Bool

    public init(folder: RecordingsFolder, includeDiscarded: Bool = false) {
        self.folder = folder
        self.includeDiscarded = includeDiscarded
    }

    /// The dataset; `reading` is told the share of the files' bytes read so far, block by block.
    public func load(reading: (Double) -> Void = { _ in }) throws(AnalysisError) -> Dataset {
        guard FileManager.default.fileExists(atPath: folder.root.string) else {
            throw AnalysisError("no recordings folder at \(folder.root)")
        }
        let catalog = try catalogRecords()
        var files: [(FilePath, Bool)]
        do {
            files = try folder.csvFiles(in: folder.root).map { ($0, false) }
            if includeDiscarded { files += try folder.csvFiles(in: folder.discardedFolder).map { ($0, true) } }
        } catch { throw AnalysisError(error.description) }
        let total = files.reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: $1.0.string)[.size] as? Int) ?? 0)
        }
        var read = 0
        var sessions: [RecordedSession] = []
        for (path, discarded) in files {
            sessions += try self.sessions(in: path, discarded: discarded, catalog: catalog) { bytes in
                read += bytes
                reading(total > 0 ? min(Double(read) / Double(total), 1) : 1)
            }
        }
        return Dataset(sessions: sessions)
    }

    /// The catalog's sessions by ID; none when the folder has no catalog (it is never created here).
    private func catalogRecords() throws(AnalysisError) -> [SessionID: SessionRecord] {
        guard FileManager.default.fileExists(atPath: folder.catalogPath.string) else { return [:] }
        do {
            let records = try Catalog(path: folder.catalogPath.string).sessions()
            return Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            throw AnalysisError(error.description)
        }
    }

    private func sessions(
        in path: FilePath, discarded: Bool, catalog: [SessionID: SessionRecord], reading: (Int) -> Void
    ) throws(AnalysisError) -> [RecordedSession] {
        let user: UserID
        do {
            user = try UserID(fileName: path.lastComponent!.string)
        } catch {
            throw AnalysisError("\(path): the file's name does not start with a user ID: \(error)")
        }
        let relative = folder.relative(discarded ? folder.root.appending(path.lastComponent!) : path)
        return try RecordingFile.sessions(at: path, reading: reading).map { id, rows in
            let record = catalog[id]
            var session = RecordedSession(
                id: id, user: user,
                gesture: record?.gesture ?? Self.gesture(of: rows),
                file: relative, device: record?.device, requestedRate: record?.requestedRate,
                discarded: discarded, rows: rows)
            session.alignment = record?.alignment
            return session
        }
    }

    static func gesture(of rows: [RecordingRow]) -> ActivityLabel {
        rows.first { !$0.activity.isRest }?.activity ?? .rest
    }
}
