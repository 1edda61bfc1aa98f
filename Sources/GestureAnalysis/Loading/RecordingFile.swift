import Foundation
import GestureCore
import struct SystemPackage.FilePath
import struct SystemPackage.FileDescriptor

/// Reads a recording file's rows: GestureLab's format or the book's.
public enum RecordingFile {
    public static func rows(at path: FilePath) throws(AnalysisError) -> [RecordingRow] {
        let bytes = try contents(of: path)
        do {
            return try bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(CSVError) in try RecordingCSV.rows(inUTF8: buffer, file: path.string) }
            }.get()
        } catch {
            throw AnalysisError(error.description)
        }
    }

    /// A whole file, read with one system call per chunk and no text decoding.
    public static func contents(of path: FilePath) throws(AnalysisError) -> [UInt8] {
        do {
            let descriptor = try FileDescriptor.open(path, .readOnly)
            return try descriptor.closeAfter {
                let size = Int(try descriptor.seek(offset: 0, from: .end))
                var bytes = [UInt8](repeating: 0, count: size)
                let read = try bytes.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }
                bytes.removeLast(size - read)
                return bytes
            }
        } catch {
            throw AnalysisError("cannot read \(path): \(error)")
        }
    }
}
