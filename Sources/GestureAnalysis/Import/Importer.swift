import Foundation
import GestureCore
import GestureMotion
import GestureStore

import struct SystemPackage.FilePath

/// What an import wrote.
public struct ImportSummary: Sendable {
    public var sessions: [SessionRecord]
    public var files: [FilePath]

    public var users: [UserID] { Set(sessions.map(\.user)).sorted() }
    public var rowCount: Int { sessions.reduce(0) { $0 + $1.sampleCount } }
}

/// Imports a long-format CSV from another tool into a recordings folder: one GestureLab file per
/// user (`<user>-<source name>.csv`), the twelve device-motion features computed from the raw
/// readings with `AttitudeFilter`, and one catalog entry per session with device `import:<file>`.
///
/// Session IDs are `<source name>:<user>:<session>`. An accelerometer with gravity removed gives
/// the filter no gravity to level on: gravity and attitude are then integrated from the gyroscope
/// alone, from an assumed level start, and are not the device's true tilt (see `motion(of:)`).
public struct Importer {
    public var folder: RecordingsFolder
    public var mapping: ColumnMapping
    public var options: ImportOptions

    public init(folder: RecordingsFolder, mapping: ColumnMapping, options: ImportOptions) {
        self.folder = folder
        self.mapping = mapping
        self.options = options
    }

    public func run(_ source: FilePath) throws(AnalysisError) -> ImportSummary {
        let file = try LongFormatFile(path: source, mapping: mapping, options: options)
        guard !file.sessions.isEmpty else { throw AnalysisError("\(source): no samples after the header") }
        let sourceName = source.stem ?? "import"
        do {
            try folder.prepare()
            let catalog = try Catalog(path: folder.catalogPath.string)
            let ids = file.sessions.map { Self.sessionID(source: sourceName, $0) }
            let existing = try catalog.sessions(SessionFilter(ids: ids))
            guard existing.isEmpty else {
                throw AnalysisError(
                    "\(source) was imported already: the catalog holds \(existing.count) of its sessions, e.g. \(existing[0].id)"
                )
            }
            var summary = ImportSummary(sessions: [], files: [])
            for (user, sessions) in Dictionary(grouping: file.sessions, by: \.user).sorted(by: { $0.key < $1.key }) {
                let path = folder.root.appending("\(user)-\(sourceName).csv")
                summary.files.append(path)
                summary.sessions += try write(sessions, of: user, to: path, source: source, catalog: catalog)
            }
            return summary
        } catch let error as AnalysisError {
            throw error
        } catch {
            throw AnalysisError("\(error)")
        }
    }

    private func write(
        _ sessions: [LongFormatFile.Session], of user: UserID, to path: FilePath, source: FilePath,
        catalog: Catalog
    ) throws -> [SessionRecord] {
        let lock = try UserLock(user: user, in: folder, for: "importing", wait: .saying { _ in })
        defer { withExtendedLifetime(lock) {} }
        let appender = try RecordingAppender(path: path)
        let now = WallClock.iso8601(Date())
        var records: [SessionRecord] = []
        for (take, session) in sessions.enumerated() {
            let id = Self.sessionID(source: source.stem ?? "import", session)
            let rows = zip(session.samples, zip(session.labels, motion(of: session.samples))).map { sample, labeled in
                RecordingRow(
                    session: id, activity: labeled.0, timestamp: sample.time - session.samples[0].time,
                    motion: labeled.1, rawAcceleration: sample.acceleration,
                    rawRotationRate: sample.rotationRate)
            }
            try appender.append(rows)
            let timing = TimingStats(
                times: rows.map(\.timestamp), nominalRate: options.sampleRate ?? 1 / (rows.medianInterval ?? .nan))
            let record = SessionRecord(
                id: id, user: user, gesture: session.labels[0], take: take + 1,
                start: now, end: now, device: "import:\(source.lastComponent!.string)",
                requestedRate: timing.nominalRate, deviceRate: timing.nominalRate, achievedRate: timing.achievedRate,
                jitterMs: timing.jitter * 1000,
                sampleCount: rows.count, file: folder.relative(path), status: .kept)
            try catalog.insert(record)
            records.append(record)
        }
        return records
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
