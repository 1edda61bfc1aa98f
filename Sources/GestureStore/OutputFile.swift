import Foundation

import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// Writes a command's output (a model, a report, a plot, an export): a regular file, or a new
/// one, is replaced whole, so a crash leaves the old file or the new one; a device or a pipe
/// (/dev/null, /dev/stdout, a FIFO) is written to as it is, never replaced by a file; a folder is
/// refused before anything is written.
public func writeOutput(_ bytes: some Collection<UInt8>, to path: FilePath) throws(StoreError) {
    var status = stat()
    guard stat(path.string, &status) == 0, status.st_mode & S_IFMT != S_IFREG else {
        return try replaceContents(of: path) { output in output.write(bytes) }
    }
    try checkOutput(path)
    do {
        let descriptor = try FileDescriptor.open(path, .writeOnly)
        try descriptor.closeAfter { _ = try descriptor.writeAll(bytes) }
    } catch {
        throw StoreError("could not write \(path) (\(error))")
    }
}

/// Refuses an output path that names a folder: what a long command checks before its work.
public func checkOutput(_ path: FilePath) throws(StoreError) {
    var status = stat()
    if stat(path.string, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
        throw StoreError("\(path) is a folder; name a file to write", badRequest: true)
    }
}
