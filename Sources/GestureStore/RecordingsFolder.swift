import Foundation
import GestureCore

import struct SystemPackage.Errno
import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// The recordings folder: one CSV per user, the catalog, discarded rows and per-user locks.
public struct RecordingsFolder: Sendable {
    public let root: FilePath

    public init(_ root: FilePath) { self.root = root }

    public var catalogPath: FilePath { root.appending("catalog.sqlite") }
    public var discardedFolder: FilePath { root.appending("discarded") }
    var locksFolder: FilePath { root.appending(".locks") }

    /// The file `gesture record` appends a user's sessions to; those recorded with a companion
    /// device go to a file of their own (`ann-recordings-with-phone.csv`), whose rows are wider.
    public func recordingFile(for user: UserID, companion prefix: String? = nil) -> FilePath {
        root.appending("\(user)-recordings\(prefix.map { "-with-\($0)" } ?? "").csv")
    }

    /// Where the discarded rows of a recording file go.
    public func discardedFile(for file: FilePath) -> FilePath {
        discardedFolder.appending(file.lastComponent!)
    }

    /// A path as the catalog stores it: relative to the recordings folder.
    public func relative(_ path: FilePath) -> String {
        var relative = path
        return relative.removePrefix(root) ? relative.string : path.string
    }

    public func absolute(_ relative: String) -> FilePath { root.pushing(FilePath(relative)) }

    /// Whether the root is a folder; nil when nothing is there.
    package var rootIsFolder: Bool? {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.string, isDirectory: &isFolder) ? isFolder.boolValue : nil
    }

    /// Creates the folder if needed and checks that it can be written to.
    public func prepare() throws(StoreError) {
        switch rootIsFolder {
        case false?: throw StoreError("the recordings folder \(root) is a file, not a folder")
        case nil:
            do {
                try FileManager.default.createDirectory(atPath: root.string, withIntermediateDirectories: true)
            } catch {
                throw StoreError("cannot create the recordings folder \(root): \(fileErrorReason(error))")
            }
        case true?: break
        }
        guard access(root.string, W_OK) == 0 else {
            throw StoreError("the recordings folder \(root) is not writable: \(String(cString: strerror(errno)))")
        }
        try FileManager.default.createDirectoryIfNeeded(locksFolder)
    }

    /// The CSV files directly in `folder`, sorted by name; none where there is no such folder.
    public func csvFiles(in folder: FilePath) throws(StoreError) -> [FilePath] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.string, isDirectory: &isFolder) else { return [] }
        guard isFolder.boolValue else { throw StoreError("\(folder) is a file, not a folder") }
        do {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.string)
            return names.filter { $0.hasSuffix(".csv") }.sorted().map { folder.appending($0) }
        } catch {
            throw StoreError("cannot read the folder \(folder): \(fileErrorReason(error))")
        }
    }

    /// The users with a recordings file.
    public func users() throws(StoreError) -> [UserID] {
        try csvFiles(in: root).compactMap { try? UserID(fileName: $0.lastComponent!.string) }
    }

    /// Temporary files that a rewrite left behind when it was stopped before its rename.
    package func leftovers(in folder: FilePath) -> [FilePath] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.string)) ?? []
        return names.filter { $0.contains(temporarySuffix) }.sorted().map { folder.appending($0) }
    }

}

extension FileManager {
    package func createDirectoryIfNeeded(_ path: FilePath) throws(StoreError) {
        do {
            try createDirectory(atPath: path.string, withIntermediateDirectories: true)
        } catch {
            throw StoreError("cannot create \(path): \(fileErrorReason(error))")
        }
    }
}

public struct StoreError: Error, CustomStringConvertible {
    public var description: String
    /// Whether what was asked for is at fault (a session the catalog does not have, a stretch that
    /// is none), found before anything changed; otherwise the folder or the system is.
    public var isBadRequest: Bool

    public init(_ description: String, badRequest: Bool = false) {
        self.description = description
        isBadRequest = badRequest
    }
}

extension RecordingsFolder {
    /// Writes a whole recording file that does not exist yet, all at once; says whether it wrote
    /// it. A file that holds exactly these rows already (the same import, repeated after a stop) is
    /// left as it is; one that holds anything else is an error.
    public func createRecording(_ rows: [RecordingRow], at path: FilePath) throws(StoreError) -> Bool {
        let text = ([RecordingCSV.header] + rows.map(RecordingCSV.line(for:))).joined(separator: "\n") + "\n"
        if FileManager.default.fileExists(atPath: path.string) {
            guard (try? String(contentsOfFile: path.string, encoding: .utf8)) == text else {
                throw StoreError("\(path) exists and holds other rows; move it aside, or import under another name")
            }
            return false
        }
        try replaceContents(of: path, with: text)
        return true
    }
}

/// Appends whole rows to a user's recording file: each batch is one write, and a batch that
/// cannot be written completely (a full disk) is cut off again, so the file never holds half a line.
public final class RecordingAppender: Sendable {
    public let path: FilePath
    /// The file's first line: the recording header, with a companion's columns if it has one.
    public let header: String
    private let descriptor: FileDescriptor

    public init(path: FilePath, companion prefix: String? = nil) throws(StoreError) {
        self.path = path
        let header = RecordingCSV.header(companion: prefix)
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: [.append, .create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw StoreError("cannot open \(path) for appending: \(error)")
        }
        do {
            hadRows = try Self.holdingTheLock(of: descriptor, path: path) { () throws(StoreError) in
                try Self.writeHeaderOrCheckIt(header, to: descriptor, path: path)
            }
        } catch {
            try? descriptor.close()
            throw error
        }
        self.header = header
        self.descriptor = descriptor
    }

    deinit { try? descriptor.close() }

    /// Whether the file already held rows before this appender wrote any.
    public let hadRows: Bool

    public func append(_ rows: some Collection<RecordingRow>) throws(StoreError) {
        try appendLines(rows.map(RecordingCSV.line(for:)))
    }

    /// Appends rows with their companion's readings, one for each row.
    public func append(
        _ rows: some Collection<RecordingRow>, companions: some Collection<CompanionReading>
    ) throws(StoreError) {
        precondition(rows.count == companions.count, "a companion reading for each row")
        try appendLines(zip(rows, companions).map { RecordingCSV.line(for: $0, companion: $1) })
    }

    private func appendLines(_ lines: [String]) throws(StoreError) {
        guard !lines.isEmpty else { return }
        let text = lines.joined(separator: "\n") + "\n"
        try Self.holdingTheLock(of: descriptor, path: path) { () throws(StoreError) in
            try Self.write(text, what: "\(lines.count) rows", to: descriptor, path: path)
        }
    }

    /// Runs `body` holding the file's lock. A batch is one write, but another appender reading the
    /// file's end meanwhile could see part of it and take it for a damaged last line.
    private static func holdingTheLock<Result>(
        of descriptor: FileDescriptor, path: FilePath, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        do {
            try descriptor.waitForExclusiveLock()
        } catch {
            throw StoreError("cannot lock \(path) for appending: \(error)")
        }
        defer { descriptor.unlock() }
        return try body()
    }

    /// Whether the file already holds rows: it starts with the header. A new file gets the header.
    private static func writeHeaderOrCheckIt(
        _ header: String, to descriptor: FileDescriptor, path: FilePath
    ) throws(StoreError) -> Bool {
        let size = (try? descriptor.seek(offset: 0, from: .end)) ?? 0
        guard size > 0 else {
            try write(header + "\n", what: "the header", to: descriptor, path: path)
            return false
        }
        var firstLine = [UInt8](repeating: 0, count: header.utf8.count + 1)
        let count =
            (try? firstLine.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }) ?? 0
        guard count == firstLine.count, String(decoding: firstLine, as: UTF8.self) == header + "\n" else {
            throw StoreError(
                "\(path):1: not a GestureLab recording header; move the file aside or record as another user")
        }
        try endLastLine(descriptor, size: size, header: header, path: path)
        return size > Int64(firstLine.count)
    }

    /// A file whose last row lacks its newline (an editor left it so) gets it, so that the next
    /// row does not run on; a last line that is not a whole row stops the append.
    private static func endLastLine(
        _ descriptor: FileDescriptor, size: Int64, header: String, path: FilePath
    ) throws(StoreError) {
        let tailLength = Int(min(size, 1 << 16))
        var tail = [UInt8](repeating: 0, count: tailLength)
        let count =
            (try? tail.withUnsafeMutableBytes {
                try descriptor.read(fromAbsoluteOffset: size - Int64(tailLength), into: $0)
            }) ?? 0
        guard count == tailLength else { throw StoreError("\(path): cannot read its last line") }
        guard tail.last != UInt8(ascii: "\n") else { return }
        var reader = RecordingCSV.Reader(file: path.string)
        _ = try? reader.read(Substring(header))
        guard let newline = tail.lastIndex(of: UInt8(ascii: "\n")),
            (try? reader.read(Substring(decoding: tail[(newline + 1)...], as: UTF8.self))) != nil
        else {
            throw StoreError(
                "\(path): its last line is not a whole row; `gesture check --repair` moves it to recordings/damaged/")
        }
        try write("\n", what: "the missing newline", to: descriptor, path: path)
    }

    private static func write(
        _ text: String, what: String, to descriptor: FileDescriptor, path: FilePath
    ) throws(StoreError) {
        let size = (try? descriptor.seek(offset: 0, from: .end)) ?? 0
        do {
            _ = try descriptor.writeAll(text.utf8)
        } catch {
            try? descriptor.resize(to: size)
            throw StoreError("could not write \(what) to \(path) (\(error)); the file was left as it was")
        }
        CrashPoint.stepCompleted()
    }
}

private let temporarySuffix = ".tmp-"

/// Replaces a file's contents all at once: a crash leaves either the old file or the new one.
func replaceContents(of path: FilePath, with text: String) throws(StoreError) {
    try replaceContents(of: path) { output in output.write(text.utf8) }
}

/// Replaces a file's contents all at once with what `body` writes: a crash, or an error thrown
/// by `body`, leaves the old file as it was.
package func replaceContents(
    of path: FilePath, writing body: (inout FileOutput) throws(StoreError) -> Void
) throws(StoreError) {
    let temporary = FilePath(path.string + temporarySuffix + "\(getpid())")
    let descriptor: FileDescriptor
    do {
        descriptor = try FileDescriptor.open(
            temporary, .writeOnly, options: [.create, .truncate],
            permissions: [.ownerReadWrite, .groupRead, .otherRead])
    } catch {
        throw StoreError("could not rewrite \(path) (\(error)); it was left as it was")
    }
    var output = FileOutput(descriptor)
    do {
        try body(&output)
    } catch {
        try? descriptor.close()
        unlink(temporary.string)
        throw error
    }
    do {
        try descriptor.closeAfter {
            try output.flush()
            guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
        }
        guard rename(temporary.string, path.string) == 0 else { throw Errno(rawValue: errno) }
        try syncFolder(of: path)
    } catch {
        unlink(temporary.string)
        throw StoreError("could not rewrite \(path) (\(error)); it was left as it was")
    }
    CrashPoint.stepCompleted()
}

/// Bytes written to a file through a buffer of a megabyte. A write that fails is kept and
/// thrown by the next `flush`, so that writing needs no error handling line by line.
package struct FileOutput {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    private var failure: (any Error)?

    init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 20)
    }

    package mutating func write(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try? flush() }
    }

    mutating func flush() throws {
        defer { buffer.removeAll(keepingCapacity: true) }
        if let failure { throw failure }
        do {
            _ = try descriptor.writeAll(buffer)
        } catch {
            failure = error
            throw error
        }
    }
}

/// Makes a rename in the file's folder durable.
private func syncFolder(of path: FilePath) throws {
    let parent = path.removingLastComponent()
    let folder = try FileDescriptor.open(parent.isEmpty ? "." : parent, .readOnly, options: [.directory])
    try folder.closeAfter {
        guard fsync(folder.rawValue) == 0 else { throw Errno(rawValue: errno) }
    }
}
