import ArgumentParser
import GestureCommandLine
import GestureCore

@main
struct Detect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture detect",
        abstract: "Detect gestures in live sensor data with a trained model.",
        discussion: "Prints each detection: time, gesture, probability and the runner-up. Ctrl-C stops.",
        version: gestureLabVersion)

    @OptionGroup var arguments: DetectArguments

    static func main() {
        mainWaitingOnThisThread()
    }

    func run() async throws {
        try await arguments.run()
    }
}
