import Foundation

/// A CPU C is built for with a real compiler and run on, natively or in QEMU: this machine, aarch64
/// Linux, and a Cortex-M4F on QEMU's mps2-an386 board.
public struct CTarget: Sendable, CustomStringConvertible {
    public let description: String
    let compiler: String
    /// The compiler's flags for this target's code, besides the strict C99 every build has.
    let flags: [String]
    /// And for its programs: start-up code, libraries, memory map.
    var programFlags: [String] = []
    /// Files its programs are built with, written into their folder: name and contents.
    var supportFiles: [(name: String, bytes: [UInt8])] = []
    /// Binutils' `size` for its object files.
    let sizeTool: String
    /// The emulator and its arguments before the program; none for this machine.
    let emulator: [String]
    /// The Debian packages it needs (`scripts/setup --tests`'s), each with a file that shows it installed.
    let packages: [(name: String, file: String)]

    public static let host = CTarget(
        description: "this machine", compiler: "/usr/bin/cc", flags: ["-O1"], sizeTool: "/usr/bin/size",
        emulator: [], packages: [("gcc", "/usr/bin/cc"), ("binutils", "/usr/bin/size")])

    public static let aarch64 = CTarget(
        description: "aarch64 Linux", compiler: "/usr/bin/aarch64-linux-gnu-gcc", flags: ["-O1"],
        sizeTool: "/usr/bin/aarch64-linux-gnu-size",
        emulator: ["/usr/bin/qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"],
        packages: [
            ("gcc-aarch64-linux-gnu", "/usr/bin/aarch64-linux-gnu-gcc"),
            ("libc6-dev-arm64-cross", "/usr/aarch64-linux-gnu/include/stdio.h"), ("qemu-user", "/usr/bin/qemu-aarch64"),
        ])

    /// QEMU's mps2-an386 board, newlib's semihosting for standard input and output.
    public static let cortexM4 = CTarget(
        description: "Cortex-M4F", compiler: "/usr/bin/arm-none-eabi-gcc",
        flags: ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb", "-Os"],
        programFlags: ["--specs=rdimon.specs", "-T", "mps2-an386.ld", "startup.c", "-Wl,-Map=program.map"],
        supportFiles: [("mps2-an386.ld", PackageResources.mps2_an386_ld), ("startup.c", PackageResources.startup_c)],
        sizeTool: "/usr/bin/arm-none-eabi-size",
        emulator: [
            "/usr/bin/qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none",
            "-semihosting-config", "enable=on,target=native", "-kernel",
        ],
        packages: [
            ("gcc-arm-none-eabi", "/usr/bin/arm-none-eabi-gcc"),
            ("libnewlib-arm-none-eabi", "/usr/lib/arm-none-eabi/newlib/arm/v5te/hard/rdimon.specs"),
            ("qemu-system-arm", "/usr/bin/qemu-system-arm"),
        ])

    public static let all = [host, aarch64, cortexM4]

    /// Whether this machine has the compiler, its C library and the emulator.
    public var isInstalled: Bool { missingPackages.isEmpty }

    /// The Debian packages this machine lacks for it.
    public var missingPackages: [String] {
        packages.filter { !FileManager.default.fileExists(atPath: $0.file) }.map(\.name)
    }

    /// Why a test of this target does not run here: the packages it lacks (where none, all it needs).
    public var missing: String {
        let names = isInstalled ? packages.map(\.name) : missingPackages
        return "needs \(names.joined(separator: ", ")) (scripts/setup --tests installs them)"
    }

    /// This machine's programs run in QEMU's user mode to have their instructions counted.
    private static let hostEmulator: String = {
        #if arch(arm64)
        "/usr/bin/qemu-aarch64"
        #else
        "/usr/bin/qemu-x86_64"
        #endif
    }()

    /// Whether QEMU can count this target's instructions here.
    public var countsInstructions: Bool {
        isInstalled && (!emulator.isEmpty || FileManager.default.isExecutableFile(atPath: Self.hostEmulator))
    }

    /// Compiles `sources` in `folder`, every warning an error, into `program` (an object file if
    /// `object`, with no start-up code or libraries, and each function's stack in `program.su`); its path.
    @discardableResult
    public func compile(_ sources: [String], in folder: String, object: Bool = false) throws(CTargetError) -> String {
        let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
        let build = object ? flags + ["-c", "-fstack-usage"] + sources : flags + programFlags + sources + ["-lm"]
        if !object {
            for file in supportFiles {
                try CTargetError.wrap {
                    try Data(file.bytes).write(to: URL(fileURLWithPath: "\(folder)/\(file.name)"))
                }
            }
        }
        try Command(compiler, strict + build + ["-o", "program"]).run(in: folder)
        return "\(folder)/program"
    }

    /// Runs `program` with the file `input` on standard input, giving the emulator `options` too; what
    /// it printed.
    public func run(
        _ program: String, input: String, in folder: String, options: [String] = []
    ) throws(CTargetError) -> String {
        let command = emulator.prefix(1) + options + emulator.dropFirst() + [program]
        return try Command(command[0], Array(command.dropFirst()), input: input).run(in: folder)
    }

    /// The instructions `program` executes here, start-up included: QEMU runs it one instruction at a
    /// time and logs each (this machine's programs in QEMU's user mode).
    public func instructions(of program: String, in folder: String) throws(CTargetError) -> Int {
        let emulator = self.emulator.isEmpty ? [Self.hostEmulator] : self.emulator
        let command =
            emulator.prefix(1) + ["-singlestep", "-d", "exec,nochain", "-D", "/dev/stderr"]
            + emulator.dropFirst() + [program]
        // A log line per instruction is gigabytes for a large model: counted as it comes, never stored.
        let counted = try Command(
            "/bin/bash",
            ["-c", "set -o pipefail; \"$@\" 2>&1 >/dev/null </dev/null | grep -c '^Trace'", "bash"] + command
        ).run(in: folder)
        guard let count = Int(counted.split(separator: "\n").first ?? "") else {
            throw CTargetError("\(command[0]) logged no instructions of \(program)")
        }
        return count
    }

    /// An object file's code and constants (flash) and its data and bss (RAM), by binutils' `size`.
    /// Constant tables of pointers that position-independent code keeps in `.data.rel.ro` are read-only
    /// once loaded: flash.
    func sections(of object: String, in folder: String) throws(CTargetError) -> (text: Int, ram: Int) {
        // "text data bss dec hex filename", then the numbers.
        let output = try Command(sizeTool, [object]).run(in: folder)
        let lines = output.split(separator: "\n")
        let numbers = lines.dropFirst().first?.split(whereSeparator: \.isWhitespace).prefix(3).compactMap { Int($0) }
        guard let numbers, numbers.count == 3 else { throw CTargetError("\(sizeTool) printed \(output)") }
        // "section size addr", a line each.
        let relocated = try Command(sizeTool, ["-A", object]).run(in: folder).split(separator: "\n").map {
            $0.split(whereSeparator: \.isWhitespace)
        }
        let readOnly = relocated.filter { $0.count == 3 && $0[0].hasPrefix(".data.rel.ro") }.compactMap { Int($0[1]) }
            .reduce(0, +)
        return (numbers[0] + readOnly, numbers[1] + numbers[2] - readOnly)
    }
}
