import Foundation
import GestureCore

import struct SystemPackage.FilePath

/// Reads a recording file's rows, GestureLab's format or Machine Learning by Tutorials', a block
/// at a time on every processor: memory holds the rows and a few blocks, never the file's text.
public enum RecordingFile {
    /// The file's rows grouped by session, sessions in order of first appearance, rows in file order.
    public static func sessions(
        at path: FilePath, reading: (_ bytes: Int) -> Void = { _ in }
    ) throws(AnalysisError) -> [(id: SessionID, rows: [RecordingRow])] {
        var order: [SessionID] = []
        var groups: [SessionID: [RecordingRow]] = [:]
        try read(path, reading: reading) { rows in
            var start = rows.startIndex
            // Rows of a session are usually consecutive: group runs rather than single rows.
            while start < rows.endIndex {
                let id = rows[start].session
                let end = rows[start...].firstIndex { $0.session != id } ?? rows.endIndex
                if groups[id] == nil { order.append(id) }
                groups[id, default: []] += rows[start..<end]
                start = end
            }
        }
        return order.map { ($0, groups.removeValue(forKey: $0)!) }
    }

    /// The file's rows in file order.
    public static func rows(at path: FilePath) throws(AnalysisError) -> [RecordingRow] {
        var rows: [RecordingRow] = []
        try read(path) { rows += $0 }
        return rows
    }

    private static func read(
        _ path: FilePath, reading: (Int) -> Void = { _ in }, _ take: ([RecordingRow]) -> Void
    ) throws(AnalysisError) {
        do {
            try RecordingCSV.read(
                file: path.string, pieces: ProcessInfo.processInfo.activeProcessorCount,
                perform: { DispatchQueue.concurrentPerform(iterations: $0, execute: $1) }, reading: reading, take)
        } catch {
            throw AnalysisError(error.description)
        }
    }
}
