import ArgumentParser
import Dispatch
import GestureCore

#if canImport(Glibc)
import Glibc
#endif

/// A one-line error and the exit code that goes with it.
public struct Failure: Error {
    public var message: String
    public var code: Int32

    public init(message: String, code: Int32) {
        self.message = message
        self.code = code
    }

    /// Bad input found before anything was recorded or changed.
    public static func usage(_ message: String) -> Failure { Failure(message: message, code: usageCode) }

    /// `--fast` with a sensor that has only real time.
    public static let fastNeedsSimulatedTime = usage(
        "--fast runs on simulated time, which only the simulated sensor and replays have")
    public static func failed(_ message: String) -> Failure { Failure(message: message, code: 1) }

    /// A usage error unless `value` lies in `range`, which nan never does, naming the option.
    /// Every numeric option is checked here, so that all say the same.
    public static func check(
        _ option: String, _ value: Double, in range: ClosedRange<Double>, being what: String
    ) throws(Failure) {
        guard range.contains(value) else {
            let upTo = range.upperBound == .infinity ? "up" : "to \(range.upperBound.shortText)"
            throw usage("\(option) \(value.shortText) is not \(what) from \(range.lowerBound.shortText) \(upTo)")
        }
    }

    /// A usage error unless the count `value` lies in `range`, naming the option.
    public static func check(_ option: String, _ value: Int, in range: ClosedRange<Int>) throws(Failure) {
        guard range.contains(value) else {
            throw usage("\(option) \(value) is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
    }

    /// The exit code of bad input or usage, whichever check finds it.
    public static let usageCode: Int32 = 2
}

/// The exit code of a command a signal stopped: 128 plus the signal's number, as a shell reports it.
public func interrupted(by signal: Int32) -> ExitCode { ExitCode(128 + signal) }

/// Lines for the person at the terminal, each written at once (no buffering: scripts read them live).
public enum Terminal {
    public static func error(_ message: String) {
        write("gesture: \(message)\n", to: STDERR_FILENO)
    }

    /// What the command is doing or waiting for, on standard error.
    public static func note(_ message: String) {
        write("gesture: \(message)\n", to: STDERR_FILENO)
    }

    public static func warn(_ message: String) {
        write("gesture: warning: \(message)\n", to: STDERR_FILENO)
    }

    public static func say(_ line: String) {
        write("\(line)\n", to: STDOUT_FILENO)
    }

    /// Asks a yes/no question on standard input; nil when nobody answers (end of input).
    public static func ask(_ question: String, default yes: Bool) -> Bool? {
        write("\(question) [\(yes ? "Y/n" : "y/N")] ", to: STDOUT_FILENO)
        guard let answer = readLine()?.trimmed.lowercased() else {
            say("")
            return nil
        }
        if answer.isEmpty { return yes }
        return answer.hasPrefix("y")
    }

    /// Asks for a line of text; nil at the end of input.
    public static func ask(_ question: String) -> String? {
        write("\(question) ", to: STDOUT_FILENO)
        guard let answer = readLine()?.trimmed else {
            say("")
            return nil
        }
        return String(answer)
    }

    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                if written < 0, errno == EPIPE { SignalWatch.outputClosed() }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

extension AsyncParsableCommand {
    /// `mainReportingFailures` from a `main` that is not async, this thread waiting for it to end the
    /// process and taking the stop signals. An async `main` gives its thread to `dispatch_main`, whose
    /// `pthread_exit` loads libgcc_s and unwinds the thread through the executable's unwind tables:
    /// time and memory at every start of the lean detector, which never needs the thread again.
    public static func mainWaitingOnThisThread() -> Never {
        SignalWatch.unblockStopSignals()
        let finished = DispatchSemaphore(value: 0)
        Task {
            await mainReportingFailures()
            finished.signal()
        }
        finished.wait()
        Glibc.exit(0)
    }

    /// Parses the arguments and runs the command they name. A `Failure` is one line and its own
    /// exit code; any other error is ArgumentParser's to report, bad usage with exit code 2 (where
    /// ArgumentParser would use 64), as every other check of the input does.
    public static func mainReportingFailures(_ arguments: [String]? = nil) async {
        // A closed output is an EPIPE for `Terminal` to act on, not a silent death mid-write.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let failure as Failure {
            Terminal.error(failure.message)
            Glibc.exit(failure.code)
        } catch  where exitCode(for: error) == .validationFailure {
            Terminal.write(fullMessage(for: error) + "\n", to: STDERR_FILENO)
            Glibc.exit(Failure.usageCode)
        } catch {
            exit(withError: error)
        }
    }
}
