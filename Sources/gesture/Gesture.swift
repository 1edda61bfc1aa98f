import ArgumentParser
import GestureCommandLine
import GestureCore

@main
struct Gesture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Record labeled motion from an accelerometer and gyroscope, and learn gestures from it.",
        version: gestureLabVersion,
        subcommands: [
            Demo.self, Devices.self, Monitor.self, Record.self, Studio.self, Sessions.self, Discard.self, Restore.self,
            Align.self,
            Relabel.self,
            Trim.self, Segment.self, Undo.self, Check.self,
            Import.self, Stats.self, Clean.self, Plot.self, BalanceCommand.self, SplitCommand.self,
            Train.self, Crossval.self, Personalize.self, Evaluate.self, Detect.self, Play.self, Export.self,
            ImportModel.self,
        ])

    static func main() async {
        // Straight to the detector, before parsing every command's options: it starts sooner.
        if CommandLine.arguments.dropFirst().first == "detect" {
            let arguments = Array(CommandLine.arguments.dropFirst(2))
            guard PhoneDetect.reads(arguments) else { Detect.runDetector(arguments) }
            return await PhoneDetect.mainReportingFailures(arguments)
        }
        await mainReportingFailures()
    }
}
