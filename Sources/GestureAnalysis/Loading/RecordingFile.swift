import Foundation
import GestureCore

import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// Reads a recording file's rows: GestureLab's format or Machine Learning by Tutorials'.
public enum RecordingFile {
    public static func rows(at path: FilePath) throws(AnalysisError) -> [RecordingRow] {
        let result: Result<[RecordingRow], CSVError> = try mapped(path) { bytes in
            Result { () throws(CSVError) in
                try RecordingCSV.rows(inUTF8: bytes, file: path.string, pieces: pieces(for: bytes.count)) {
                    count, readPiece in
                    DispatchQueue.concurrentPerform(iterations: count, execute: readPiece)
                }
            }
        }
        do {
            return try result.get()
        } catch {
            throw AnalysisError(error.description)
        }
    }

    /// One piece per processor for files big enough to be worth it.
    private static func pieces(for size: Int) -> Int {
        size < 4 << 20 ? 1 : ProcessInfo.processInfo.activeProcessorCount
    }

    /// Calls `body` with the file's bytes mapped into memory: the page cache's pages themselves,
    /// with no copy into a buffer of our own.
    private static func mapped<T>(
        _ path: FilePath, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) throws(AnalysisError) -> T {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.open(path, .readOnly) } catch {
            throw AnalysisError("cannot read \(path): \(error)")
        }
        defer { try? descriptor.close() }
        var status = stat()
        guard fstat(descriptor.rawValue, &status) == 0 else {
            throw AnalysisError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let size = Int(status.st_size)
        guard size > 0 else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor.rawValue, 0),
            address != MAP_FAILED
        else {
            throw AnalysisError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { munmap(address, size) }
        return body(UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size))
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
