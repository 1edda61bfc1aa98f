import ArgumentParser
import GestureCommandLine
import GestureCore

#if canImport(Glibc)
import Glibc
#endif

@main
struct Gesture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Record labeled motion from an accelerometer and gyroscope, and learn gestures from it.",
        discussion: """
            Start with `gesture demo`. One example for each group of commands below:
              gesture record --device sim --user me --gesture shake --takes 3
              gesture relabel ID --from 1.5 --to 3.2 --as chop
              gesture split --by user --seed 1 --output split.txt
              gesture train --manifest split.txt --output mine.model
              gesture detect --model mine.model --device sim
              gesture export mine.model --format onnx -o mine.onnx
            """,
        version: gestureLabVersion,
        subcommands: [Demo.self],
        groupedSubcommands: [
            CommandGroup(name: "Recording", subcommands: [Devices.self, Monitor.self, Record.self, Studio.self]),
            CommandGroup(
                name: "Sessions and labels",
                subcommands: [
                    Sessions.self, Discard.self, Restore.self, Align.self, Relabel.self, Trim.self, Segment.self,
                    Undo.self, Check.self,
                ]),
            CommandGroup(
                name: "Analysis",
                subcommands: [
                    Import.self, Stats.self, Clean.self, Plot.self, BalanceCommand.self, SplitCommand.self,
                ]),
            CommandGroup(
                name: "Learning", subcommands: [Train.self, Crossval.self, Evaluate.self, Personalize.self]),
            CommandGroup(name: "Live", subcommands: [Detect.self, Play.self]),
            CommandGroup(name: "Model formats", subcommands: [Export.self, ImportModel.self]),
        ])

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Straight to the detector, before parsing every command's options: it starts sooner.
        if arguments.first == "detect" {
            let options = Array(arguments.dropFirst())
            guard PhoneDetect.reads(options) else { Detect.runDetector(options) }
            return await PhoneDetect.mainReportingFailures(options)
        }
        if let unknown = unknownSubcommand(in: arguments) {
            Terminal.error(unknown.message)
            Glibc.exit(unknown.code)
        }
        await mainReportingFailures()
    }
}
