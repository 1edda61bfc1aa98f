import ArgumentParser
import Foundation

@main
struct Gesture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Record labeled motion from an accelerometer and gyroscope, and learn gestures from it.",
        subcommands: [Demo.self, Devices.self, Record.self, Sessions.self, Discard.self, Restore.self, Check.self,
                      Import.self, Stats.self, Clean.self, Plot.self, BalanceCommand.self, SplitCommand.self,
                      Train.self, Evaluate.self, Detect.self, Play.self])

    /// Errors of ours are one line and their own exit code; the rest is ArgumentParser's.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as Failure {
            Terminal.error(failure.message)
            Foundation.exit(failure.code)
        } catch {
            exit(withError: error)
        }
    }
}

/// A one-line error and the exit code that goes with it.
struct Failure: Error {
    var message: String
    var code: Int32

    /// Bad input found before anything was recorded or changed.
    static func usage(_ message: String) -> Failure { Failure(message: message, code: 2) }
    static func failed(_ message: String) -> Failure { Failure(message: message, code: 1) }
}

enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("gesture: \(message)\n".utf8))
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("gesture: warning: \(message)\n".utf8))
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("\(line)\n".utf8))
    }

    /// Asks a yes/no question on standard input; nil when nobody answers (end of input).
    static func ask(_ question: String, default yes: Bool) -> Bool? {
        FileHandle.standardOutput.write(Data("\(question) [\(yes ? "Y/n" : "y/N")] ".utf8))
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else {
            say("")
            return nil
        }
        if answer.isEmpty { return yes }
        return answer.hasPrefix("y")
    }
}
