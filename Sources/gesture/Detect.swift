import ArgumentParser
import GestureCommandLine
import GestureStudio
import Glibc

/// `gesture detect` runs `gesture-detect` from beside this executable, so that the detector's
/// process holds what detection needs and not the catalog, analysis and training.
struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect gestures in live sensor data with a trained model.",
        discussion: "Runs gesture-detect, which is built beside gesture; `gesture detect --help` lists its options.")

    @Argument(parsing: .captureForPassthrough, help: "gesture-detect's options.")
    var arguments: [String] = []

    func run() {
        Self.runDetector(arguments)
    }

    /// Becomes gesture-detect with `arguments`, or says why it cannot and exits.
    static func runDetector(_ arguments: [String]) -> Never {
        let detector = siblingExecutable("gesture-detect")
        let reason = replaceProcess(with: detector, arguments: [detector] + arguments)
        Terminal.error("cannot run \(detector): \(reason)")
        Glibc.exit(1)
    }
}

/// `gesture detect --device phone`: the detector runs in this process, which serves the phone's
/// page; gesture-detect stays without the server.
struct PhoneDetect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "gesture detect")

    @OptionGroup var arguments: DetectArguments
    @OptionGroup var server: ServerOptions
    @OptionGroup var folder: FolderOptions

    /// Whether `arguments` name the phone's page as the device.
    static func reads(_ arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { $0 == "--device" && $1 == PhoneSensor.id }
            || arguments.contains("--device=\(PhoneSensor.id)")
    }

    func run() async throws {
        let phone = try await PhoneConnection.open(
            for: arguments.sensor, fast: arguments.options.fast, server, folder: folder.folder)
        do {
            try await arguments.run(opened: try phone?.device(through: arguments.sensor)) { phone?.show($0) }
        } catch {
            await phone?.close(saying: "Stopped")
            throw error
        }
        await phone?.close(saying: "Done")
    }
}
