import Foundation
import GestureCore
import GestureStore

/// A place where the recordings folder's files and its catalog disagree, or a file is damaged.
public enum Discrepancy: Sendable, Equatable, CustomStringConvertible {
    /// A session's rows are in the file its status does not put them in (as well, or only).
    case misplaced(SessionID, status: SessionStatus, rows: Int, file: String)
    /// The catalog's row count is not the number of rows in the session's file.
    case countDiffers(SessionID, catalog: Int, found: Int, file: String)
    /// A take the catalog says is being recorded, while no process records its user.
    case unfinished(SessionID, rows: Int)
    /// Sessions in a file that the catalog does not know.
    case uncatalogued([SessionID], file: String)
    /// A line that is not a row.
    case damaged(file: String, line: Int, reason: String)
    /// A line that is not a row, too long to move.
    case tooLongToMove(file: String, line: Int, bytes: Int)
    /// The last row has no newline after it.
    case missingNewline(file: String)
    /// A file that cannot be read as text at all.
    case unreadable(file: String, reason: String)
    /// A temporary file that a rewrite left behind when it was stopped; the file it was to replace is whole.
    case leftover(file: String)
    /// A trimmed session's file holds rows outside the stretch it keeps: a trim was stopped.
    case untrimmed(SessionID, kept: ClosedRange<Double>, rows: Int, file: String)
    /// Rows labeled otherwise than the catalog's spans say: a relabel was stopped.
    case labelsDiffer(SessionID, rows: Int, file: String)

    public var description: String {
        switch self {
        case .misplaced(let id, let status, let rows, let file):
            "session \(id) is \(status.rawValue), but \(file) holds \(rows) of its rows"
        case .countDiffers(let id, let catalog, let found, let file):
            "session \(id): the catalog says \(catalog.counting("row")), \(file) holds \(found)"
        case .unfinished(let id, let rows):
            "session \(id) is still marked as being recorded, but no gesture process records it (\(rows.counting("row")))"
        case .uncatalogued(let ids, let file):
            "\(file) holds \(ids.count.counting("session")) the catalog does not know: "
                + ids.prefix(5).map(\.rawValue).joined(separator: ", ") + (ids.count > 5 ? ", …" : "")
        case .damaged(let file, let line, let reason): "\(file):\(line): \(reason)"
        case .tooLongToMove(let file, let line, let bytes):
            "\(file):\(line): the line is \(bytes) bytes long, not a recording row and too long for repair to move; take it out of the file by hand"
        case .missingNewline(let file): "\(file): the last line has no newline"
        case .unreadable(let file, let reason): "\(file): \(reason)"
        case .leftover(let file): "\(file) is left over from a rewrite that was stopped"
        case .untrimmed(let id, let kept, let rows, let file):
            "session \(id) is trimmed to \(String(format: "%.2f–%.2f s", kept.lowerBound, kept.upperBound)), but \(file) holds \(rows.counting("row")) outside it"
        case .labelsDiffer(let id, let rows, let file):
            "session \(id): \(rows.counting("row")) in \(file) labeled otherwise than the catalog says"
        }
    }

    /// What `repair` does about it, or nil if it leaves it to the user.
    public var repair: String? {
        switch self {
        case .misplaced: "move the rows to where the status puts them"
        case .untrimmed: "move them to discarded/"
        case .countDiffers(_, _, let found, _): found > 0 ? "count the rows again" : nil
        case .unfinished: "mark the take incomplete with the rows its file holds"
        case .uncatalogued: "add them to the catalog as recovered"
        case .damaged(let file, _, _): "move the line to \(Archive.damagedFolderName)/\(file)"
        case .missingNewline: "add the newline"
        case .unreadable, .tooLongToMove: nil
        case .leftover: "remove it"
        case .labelsDiffer: "label them as the catalog says"
        }
    }
}
