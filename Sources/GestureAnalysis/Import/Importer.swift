import Foundation
import GestureCore
import GestureMotion
import GestureStore

import struct SystemPackage.FilePath

/// What an import wrote.
public struct ImportSummary: Sendable {
    public var sessions: [SessionRecord]
    public var files: [FilePath]
    /// Whether the files and the catalog held all of it already: nothing was written.
    public var wasComplete: Bool

    public var users: [UserID] { Set(sessions.map(\.user)).sorted() }
    public var rowCount: Int { sessions.reduce(0) { $0 + $1.sampleCount } }
}

/// Where an import is, for a person waiting on a large file.
public enum ImportStep: Sendable, Equatable {
    /// Reading the source file: the share of its bytes read.
    case reading(fraction: Double)
    /// Computing device motion for a user's sessions and writing their file: user `index` of `of`.
    case converting(user: UserID, index: Int, of: Int)
}

/// Imports a long-format CSV from another tool into a recordings folder: one GestureLab file per
/// user (`<user>-<source name>.csv`), the twelve device-motion features computed from the raw
/// readings with `AttitudeFilter`, and one catalog entry per session with device `import:<file>`.
///
/// Session IDs are `<source name>:<user>:<session>`. An accelerometer with gravity removed gives
/// the filter no gravity to level on: gravity and attitude are then integrated from the gyroscope
/// alone, from an assumed level start, and are not the device's true tilt (see `motion(of:)`).
///
/// An import holds its users' locks throughout, writes each user's file whole (renamed into
/// place), then enters every session in the catalog in one transaction. Repeated after a stop, it
/// finds the files it wrote and finishes; repeated after it finished, it changes nothing.
public struct Importer {
    public var folder: RecordingsFolder
    public var mapping: ColumnMapping
    public var options: ImportOptions
    public var waiting: LockWait

    public init(folder: RecordingsFolder, mapping: ColumnMapping, options: ImportOptions, waiting: LockWait = .never) {
        self.folder = folder
        self.mapping = mapping
        self.options = options
        self.waiting = waiting
    }

    /// Imports the file; `progress` is told each step as it comes, for a person waiting.
    public func run(
        _ source: FilePath, progress: (ImportStep) -> Void = { _ in }
    ) throws(AnalysisError) -> ImportSummary {
        let file = try LongFormatFile(path: source, mapping: mapping, options: options) {
            progress(.reading(fraction: $0))
        }
        guard !file.sessions.isEmpty else { throw AnalysisError("\(source): no samples after the header") }
        let users = Dictionary(grouping: file.sessions, by: \.user).sorted { $0.key < $1.key }
        do {
            let locks = try UserLock.all(users.map(\.key), in: folder, for: "importing", wait: waiting)
            defer { withExtendedLifetime(locks) {} }
            let catalog = try Catalog(path: folder.catalogPath.string)
            var summary = ImportSummary(sessions: [], files: [], wasComplete: true)
            for (index, (user, sessions)) in users.enumerated() {
                progress(.converting(user: user, index: index, of: users.count))
                let path = folder.root.appending("\(user)-\(source.stem ?? "import").csv")
                let (rows, records) = convert(sessions, of: user, file: path, source: source)
                if try folder.createRecording(rows, at: path) { summary.wasComplete = false }
                summary.files.append(path)
                summary.sessions += records
            }
            if try catalog.save(summary.sessions) > 0 { summary.wasComplete = false }
            return summary
        } catch {
            throw AnalysisError("\(error)")
        }
    }

    /// A user's sessions as rows and catalog records. Their start and end are the source file's
    /// modification time, not the import's, so that a repeat gives the same records.
    private func convert(
        _ sessions: [LongFormatFile.Session], of user: UserID, file path: FilePath, source: FilePath
    ) -> (rows: [RecordingRow], records: [SessionRecord]) {
        let modified = (try? FileManager.default.attributesOfItem(atPath: source.string)[.modificationDate]) as? Date
        let time = WallClock.iso8601(modified ?? Date(timeIntervalSince1970: 0))
        var rows: [RecordingRow] = []
        var records: [SessionRecord] = []
        for (take, session) in sessions.enumerated() {
            let id = Self.sessionID(source: source.stem ?? "import", session)
            let sessionRows = zip(session.samples, zip(session.labels, motion(of: session.samples))).map {
                sample, labeled in
                RecordingRow(
                    session: id, activity: labeled.0, timestamp: sample.time - session.samples[0].time,
                    motion: labeled.1, rawAcceleration: sample.acceleration, rawRotationRate: sample.rotationRate)
            }
            rows += sessionRows
            let timing = TimingStats(
                times: sessionRows.map(\.timestamp),
                nominalRate: options.sampleRate ?? 1 / (sessionRows.medianInterval ?? .nan))
            records.append(
                SessionRecord(
                    id: id, user: user, gesture: session.labels[0], take: take + 1,
                    start: time, end: time, device: "import:\(source.lastComponent!.string)",
                    requestedRate: timing.nominalRate, deviceRate: timing.nominalRate,
                    achievedRate: timing.achievedRate, jitterMs: timing.jitter * 1000,
                    sampleCount: sessionRows.count, file: folder.relative(path), status: .kept))
        }
        return (rows, records)
    }

    /// Device motion for one session, a fresh filter per session. With gravity removed, the filter
    /// only integrates the gyroscope from a level start (its gain is zero, the accelerometer is not
    /// consulted), and the measured acceleration is kept as the user acceleration.
    func motion(of samples: [RawSample]) -> [DeviceMotion] {
        guard options.gravityRemoved else {
            var filter = AttitudeFilter()
            return samples.map { filter.update($0) }
        }
        var filter = AttitudeFilter(gain: 0)
        return samples.map { sample in
            var motion = filter.update(
                RawSample(time: sample.time, acceleration: [0, 0, 1], rotationRate: sample.rotationRate))
            motion.userAcceleration = sample.acceleration
            return motion
        }
    }

    static func sessionID(source: String, _ session: LongFormatFile.Session) -> SessionID {
        SessionID(rawValue: "\(source):\(session.user):\(session.key)")
    }
}
