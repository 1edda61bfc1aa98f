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
    let file = try OpenFile(path)
    return try file.readAll()
}

/// The whole contents of the file at `path` for `body` to read: a regular file mapped into memory,
/// so that a large one is not copied on its way (anything else is read).
public func withContents<Result>(
    ofFile path: String, _ body: (UnsafeRawBufferPointer) -> Result
)
    throws(FileReadError) -> Result
{
    let file = try OpenFile(path)
    if let size = file.regularSize, size > 0 {
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        if let mapping = mmap(nil, size, PROT_READ, flags, file.descriptor, 0), mapping != MAP_FAILED {
            defer { munmap(mapping, size) }
            return body(UnsafeRawBufferPointer(start: mapping, count: size))
        }
    }
    return try file.readAll().withUnsafeBytes(body)
}

/// A file open for reading, closed when it goes.
private struct OpenFile: ~Copyable {
    let path: String
    let descriptor: Int32

    init(_ path: String) throws(FileReadError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
    }

    deinit { close(descriptor) }

    /// The size of a regular file; nil for anything else.
    var regularSize: Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Reads to the end. Room for the whole of a regular file and a byte more, read straight into
    /// it: the read that comes back empty says the file ended. A file that grows as it is read gets
    /// more room.
    func readAll() throws(FileReadError) -> [UInt8] {
        var room = (regularSize ?? (1 << 16 - 1)) + 1
        var bytes: [UInt8] = []
        while true {
            var failure: Int32?
            let filled = [UInt8](unsafeUninitializedCapacity: room) { buffer, count in
                count = 0
                while count < buffer.count {
                    let got = read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                    if got < 0, errno == EINTR { continue }
                    if got < 0 { failure = errno }
                    guard got > 0 else { return }
                    count += got
                }
            }
            if let failure { throw FileReadError(path: path, reason: String(cString: strerror(failure))) }
            if bytes.isEmpty { bytes = filled } else { bytes += filled }
            if filled.count < room { return bytes }
            room = max(bytes.count, 1 << 16)
        }
    }
}

/// A file read from start to end a block at a time, handed over as whole lines, so that memory
/// holds one block and never the whole file.
///
/// Each block ends with a newline, but the file's last, which may lack it. The buffer holds
/// `blockSize` bytes and grows for a longer line up to `longestLine`; a line that would need more
/// is skipped, and handed over as its length alone.
public struct LineBlocks: ~Copyable {
    public enum Block {
        /// Whole lines, each with its newline (the file's last line perhaps without).
        case lines(UnsafeBufferPointer<UInt8>)
        /// A line too long to hold, skipped: its length without the newline.
        case overlong(length: Int)
    }

    public let path: String
    public let longestLine: Int
    /// The file's size when it was opened, in bytes; 0 if it is not a regular file.
    public let size: Int
    private let descriptor: Int32
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    /// Bytes read into the buffer and not handed over yet: `buffer[pending..<filled]`.
    private var pending = 0
    private var filled = 0
    private var atEnd = false
    /// The bytes of an overlong line skipped so far, while skipping one.
    private var skipped: Int?

    public init(path: String, blockSize: Int = 4 << 20, longestLine: Int = 1 << 20) throws(FileReadError) {
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        size = fstat(descriptor, &status) == 0 ? Int(status.st_size) : 0
        self.path = path
        self.longestLine = longestLine
        buffer = .allocate(capacity: max(blockSize, 1))
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    /// The next block, valid until the next call; nil at the end of the file.
    public mutating func next() throws(FileReadError) -> Block? {
        while pending < filled || !atEnd || skipped != nil {
            if let block = try nextBlock() { return block }
        }
        return nil
    }

    /// A block from what the buffer holds, or nil when it needs more bytes first.
    private mutating func nextBlock() throws(FileReadError) -> Block? {
        let waiting = UnsafeBufferPointer(rebasing: buffer[pending..<filled])
        if let skipped {
            guard let newline = CSVBytes.index(of: UInt8(ascii: "\n"), in: waiting, from: 0) else {
                pending = filled
                self.skipped = skipped + waiting.count
                if atEnd {
                    self.skipped = nil
                    return .overlong(length: skipped + waiting.count)
                }
                try refill()
                return nil
            }
            self.skipped = nil
            pending += newline + 1
            return .overlong(length: skipped + newline)
        }
        // Searched from the end, where the block's last line is short.
        if let lastNewline = waiting.lastIndex(of: UInt8(ascii: "\n")) {
            pending += lastNewline + 1
            return .lines(UnsafeBufferPointer(rebasing: waiting[...lastNewline]))
        }
        if waiting.count > longestLine {
            pending = filled
            skipped = waiting.count
            return nil
        }
        if atEnd {
            pending = filled
            return waiting.isEmpty ? nil : .lines(waiting)
        }
        if waiting.count == buffer.count { grow() }
        try refill()
        return nil
    }

    /// Doubles the buffer, up to one byte more than the longest line, for a line that fills it.
    private mutating func grow() {
        let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: min(2 * buffer.count, longestLine + 1))
        _ = larger.initialize(fromContentsOf: buffer[pending..<filled])
        buffer.deallocate()
        buffer = larger
        filled -= pending
        pending = 0
    }

    /// Moves the bytes not handed over to the buffer's start and reads after them.
    private mutating func refill() throws(FileReadError) {
        let base = buffer.baseAddress!
        if pending > 0 {
            memmove(base, base + pending, filled - pending)
            filled -= pending
            pending = 0
        }
        while filled < buffer.count {
            let count = read(descriptor, base + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileReadError(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 {
                atEnd = true
                return
            }
            filled += count
        }
    }
}

/// The lines of a block of text, without their newlines: a last line without one is a line, an
/// empty text after the last newline is not.
public struct Lines: Sequence, IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var start = 0

    public init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard start < bytes.count else { return nil }
        let end = CSVBytes.index(of: UInt8(ascii: "\n"), in: bytes, from: start) ?? bytes.count
        defer { start = end + 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
