import Foundation
import GestureCore

import struct SystemPackage.Errno
import struct SystemPackage.FileDescriptor
import struct SystemPackage.FilePath

/// What to do when another process holds a lock.
public enum LockWait: Sendable {
    /// Fail at once, saying who holds it.
    case never
    /// Say what is awaited, then wait for it.
    case saying(@Sendable (String) -> Void)
}

/// Exclusive use of one user's recordings. Every command that changes them holds it for the whole
/// change: a recorder for its whole run; discard, restore, import and repair while they rewrite the
/// user's files and sessions. The lock file names its holder, for those who wait.
public final class UserLock: Sendable {
    private let descriptor: FileDescriptor

    /// Takes the lock for `activity` ("recording", "discarding", …).
    public init(user: UserID, in folder: RecordingsFolder, for activity: String, wait: LockWait) throws(StoreError) {
        try folder.prepare()
        descriptor = try Self.open(
            folder.locksFolder.appending("\(user).lock"), user: user, activity: activity, wait: wait)
    }

    /// The lock file, locked and naming its holder. The descriptor is closed here on failure, and
    /// only here: an initializer that threw after setting it would close it again in `deinit`,
    /// and a second close can close another thread's file.
    private static func open(
        _ path: FilePath, user: UserID, activity: String, wait: LockWait
    ) throws(StoreError) -> FileDescriptor {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                path, .readWrite, options: [.create], permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw StoreError("cannot open the lock \(path): \(error)")
        }
        do {
            try lock(descriptor, user: user, path: path, wait: wait)
            try descriptor.resize(to: 0)
            _ = try descriptor.writeAll(toAbsoluteOffset: 0, "\(activity), pid \(getpid())\n".utf8)
            return descriptor
        } catch let error as StoreError {
            try? descriptor.close()
            throw error
        } catch {
            try? descriptor.close()
            throw StoreError("cannot write the lock \(path): \(error)")
        }
    }

    /// Locks every user's recordings, in one order for all processes so that none waits in a cycle.
    public static func all(
        _ users: some Sequence<UserID>, in folder: RecordingsFolder, for activity: String, wait: LockWait
    ) throws(StoreError) -> [UserLock] {
        var locks: [UserLock] = []
        for user in Set(users).sorted() {
            locks.append(try UserLock(user: user, in: folder, for: activity, wait: wait))
        }
        return locks
    }

    deinit { try? descriptor.close() }

    private static func lock(
        _ descriptor: FileDescriptor, user: UserID, path: FilePath, wait: LockWait
    ) throws(StoreError) {
        guard flock(descriptor.rawValue, LOCK_EX | LOCK_NB) != 0 else { return }
        guard errno == EWOULDBLOCK else {
            throw StoreError("cannot lock \(path): \(String(cString: strerror(errno)))")
        }
        let holder = Self.holder(descriptor)
        switch wait {
        case .never:
            throw StoreError("another gesture process (\(holder)) is using \(user)'s recordings; lock \(path)")
        case .saying(let say):
            say("waiting for another gesture process (\(holder)) to finish with \(user)'s recordings…")
            do {
                try descriptor.waitForExclusiveLock()
            } catch {
                throw StoreError("cannot lock \(path): \(error)")
            }
        }
    }

    private static func holder(_ descriptor: FileDescriptor) -> String {
        var bytes = [UInt8](repeating: 0, count: 200)
        let count = (try? bytes.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: 0, into: $0) }) ?? 0
        let text = String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "pid unknown" : text
    }
}

extension FileDescriptor {
    /// Waits for an exclusive advisory lock on the open file, held until `unlock` or the close.
    package func waitForExclusiveLock() throws(Errno) {
        while flock(rawValue, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Errno(rawValue: errno) }
        }
    }

    package func unlock() { flock(rawValue, LOCK_UN) }
}
