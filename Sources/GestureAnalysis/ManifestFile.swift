import Foundation
import GestureCore
import GestureStore

extension Manifest {
    /// The manifest in the file at `path`; errors name the file, and the line when it is the text.
    public static func read(_ path: String) throws(AnalysisError) -> Manifest {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw AnalysisError("cannot read the manifest \(path): \(fileErrorReason(error))")
        }
        do { return try Manifest(text: text, file: path) } catch { throw AnalysisError(error.description) }
    }
}
