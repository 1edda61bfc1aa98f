import Foundation
import GestureTestSupport
import Testing

/// A CPU the exported C library is built for with a real compiler and run on, natively or in QEMU.
struct CTarget: Sendable, CustomStringConvertible {
    let description: String
    let compiler: String
    /// The compiler's flags for this target's code, besides the strict C99 every build has.
    let flags: [String]
    /// And for its programs: start-up code, libraries, memory map.
    var programFlags: [String] = []
    /// The emulator and its arguments before the program; none for this machine.
    let emulator: [String]
    /// The Debian packages that hold the compiler and the emulator: `scripts/setup --tests`'s.
    let packages: String

    static let host = CTarget(
        description: "this machine", compiler: "/usr/bin/cc", flags: ["-O1"], emulator: [], packages: "gcc")

    static let aarch64 = CTarget(
        description: "aarch64 Linux", compiler: "/usr/bin/aarch64-linux-gnu-gcc", flags: ["-O1"],
        emulator: ["/usr/bin/qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"],
        packages: "gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user")

    /// QEMU's mps2-an386 board, newlib's semihosting for standard input and output.
    static let cortexM4 = CTarget(
        description: "Cortex-M4F", compiler: "/usr/bin/arm-none-eabi-gcc",
        flags: ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb", "-Os"],
        programFlags: [
            "--specs=rdimon.specs", "-T", "\(board)/mps2-an386.ld", "\(board)/startup.c", "-Wl,-Map=program.map",
        ],
        emulator: [
            "/usr/bin/qemu-system-arm", "-M", "mps2-an386", "-nographic", "-monitor", "none", "-serial", "none",
            "-semihosting-config", "enable=on,target=native", "-kernel",
        ],
        packages: "gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm")
    private static let board = Repository.path("Tests/Fixtures/mps2-an386")

    /// Whether this machine has the compiler and the emulator.
    var isInstalled: Bool {
        ([compiler] + emulator.prefix(1)).allSatisfy(FileManager.default.isExecutableFile)
    }

    /// Why a test of this target does not run here.
    var missing: Comment { "needs \(packages) (scripts/setup --tests installs them)" }

    /// Compiles `sources` in `folder`, every warning an error, into `program` (an object file if
    /// `object`, with no start-up code or libraries, and each function's stack in `program.su`); its path.
    @discardableResult
    func compile(_ sources: [String], in folder: TemporaryFolder, object: Bool = false) throws -> String {
        let strict = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
        let build = object ? flags + ["-c", "-fstack-usage"] + sources : flags + programFlags + sources + ["-lm"]
        try runGesture(strict + build + ["-o", "program"], in: folder.path, executable: compiler).succeeded()
        return folder.path.appending("program").string
    }

    /// Runs `program` with the file `input` on standard input, giving the emulator `options` too.
    func run(
        _ program: String, input: String, in folder: TemporaryFolder, options: [String] = []
    ) throws
        -> ProcessResult
    {
        let command = emulator.prefix(1) + options + emulator.dropFirst() + [program]
        return try runGesture(
            Array(command.dropFirst()), in: folder.path, shell: "exec < '\(input)'", executable: command[0])
    }
}
