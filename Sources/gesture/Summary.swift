import Foundation
import GestureRecording
import GestureStore
import GestureTraining

/// The text tables the commands print.
enum Summary {
    static func recording(_ outcome: RecordingOutcome, folder: RecordingsFolder) -> String {
        """

        \(outcome.sessions.count.counting("take")), \(outcome.rowCount.counting("row")) appended to \(outcome.file)
        catalog: \(folder.catalogPath)
        \(sessions(outcome.sessions))
        """
    }

    /// Why a recording ended early and what it kept: "interrupted by SIGINT; 2 takes, 1400 rows
    /// saved, take 2 marked incomplete".
    static func interrupted(_ outcome: RecordingOutcome, because reason: String) -> String {
        let incomplete = outcome.sessions.filter { $0.status == .incomplete }.map { "\($0.take)" }
        let marked =
            switch incomplete.count {
            case 0: ""
            case 1: ", take \(incomplete[0]) marked incomplete"
            default: ", takes \(incomplete.joined(separator: ", ")) marked incomplete"
            }
        return
            "\(reason); \(outcome.sessions.count.counting("take")), \(outcome.rowCount.counting("row")) saved\(marked)"
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
