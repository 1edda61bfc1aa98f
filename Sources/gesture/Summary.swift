import Foundation
import GestureExperiments
import GestureRecording
import GestureStore

/// The text tables the commands print.
enum Summary {
    static func recording(_ outcome: RecordingOutcome, folder: RecordingsFolder) -> String {
        """

        \(outcome.sessions.count) takes, \(outcome.rowCount) rows appended to \(outcome.file)
        catalog: \(folder.catalogPath)
        \(sessions(outcome.sessions))
        """
    }

    static func sessions(_ records: [SessionRecord]) -> String {
        let header = ["session", "user", "gesture", "device", "rows", "rate Hz", "jitter ms", "status"]
        let rows = records.map { record in
            [
                record.id.rawValue, record.user.rawValue, record.gesture.rawValue, record.device,
                "\(record.sampleCount)",
                String(format: "%.2f", record.achievedRate), String(format: "%.3f", record.jitterMs),
                record.status.rawValue + (record.reason.map { " (\($0))" } ?? ""),
            ]
        }
        return table(header: header, rows: rows)
    }

    /// Columns padded to their widest cell, numbers and words alike left-aligned.
    static func table(header: [String], rows: [[String]]) -> String {
        Reports.table(header, rows)
    }
}
