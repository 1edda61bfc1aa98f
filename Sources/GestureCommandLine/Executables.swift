#if canImport(Glibc)
import Glibc
#endif

/// The path of the executable named `name` in the folder of the running one.
public func siblingExecutable(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return name }
    let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return path[..<(path.lastIndex(of: "/") ?? path.startIndex)] + "/" + name
}

/// Runs the program at `path` in place of this process with `arguments`, its own name first.
/// Returns only if it cannot, with the system's reason.
public func replaceProcess(with path: String, arguments: [String]) -> String {
    let argv = arguments.map { strdup($0) } + [nil]
    execv(path, argv)
    return String(cString: strerror(errno))
}
