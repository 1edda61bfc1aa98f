#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that cannot be read, with the system's reason.
public struct FileReadError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read \(path): \(reason)" }
}

/// The whole contents of the file at `path`.
public func readFile(_ path: String) throws(FileReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var status = stat()
    var bytes: [UInt8] = []
    // Room for the whole of a regular file, so that it is read in one go; more as it comes.
    bytes.reserveCapacity(fstat(descriptor, &status) == 0 ? Int(status.st_size) + 1 : 1 << 16)
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileReadError(path: path, reason: String(cString: strerror(errno)))
        }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
    }
}
