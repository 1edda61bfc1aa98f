import Foundation
import GestureStore

extension Palette {
    /// The band colour of each gesture the catalog of `folder` has sessions of, whatever is selected
    /// to draw: what `gesture plot` and the studio both colour a gesture's bands with. Empty when the
    /// folder has no catalog.
    public static func gestureColors(in folder: RecordingsFolder) throws(AnalysisError) -> [String: String] {
        guard FileManager.default.fileExists(atPath: folder.catalogPath.string) else { return [:] }
        do {
            let sessions = try Catalog(path: folder.catalogPath.string).sessions()
            return gestureColors(sessions.map(\.gesture).filter { !$0.isRest }.map(\.rawValue))
        } catch {
            throw AnalysisError(error.description)
        }
    }
}
