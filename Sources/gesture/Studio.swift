import ArgumentParser
import GestureCommandLine
import GestureSensors
import GestureStudio

struct Studio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve GestureLab Studio: the phone's page, which makes a phone the sensor.",
        discussion: """
            Prints the address to open, with its access token; a request without the token is refused. \
            Runs until Ctrl-C.
            """)

    @OptionGroup var server: ServerOptions

    func run() async throws {
        let studio = try await server.start(phone: try PhoneLink(notify: Terminal.note))
        Terminal.say(studio.address(of: "/"))
        Terminal.note("open the address above, or \(studio.address(of: "/phone")) on the phone; Ctrl-C ends")
        let stop = AsyncStream<Void>.makeStream()
        let watch = SignalWatch { _ in stop.continuation.finish() }
        for await _ in stop.stream {}
        studio.stop(saying: "Studio closed")
        withExtendedLifetime(watch) {}
    }
}

/// Where the studio's server listens: its own command's, or the one a command reading the phone starts.
struct ServerOptions: ParsableArguments {
    @Option(help: "The port the phone's page is served on (0: any free one).")
    var port = 8080

    /// Every reading the phone sends, as received, for tests to compare with what they played.
    @Option(name: .customLong("phone-log"), help: .hidden)
    var phoneLog: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
    }

    func start(phone: PhoneLink) async throws -> RunningStudio {
        do {
            return try await StudioServer(phone: phone, port: port).start()
        } catch {
            throw Failure.usage("studio: \(error)")
        }
    }
}

/// `--device phone`: the studio's server started for the command, the phone's page waited for.
struct PhoneConnection {
    let studio: RunningStudio
    let sensor: PhoneSensor

    static func open(_ options: ServerOptions) async throws -> PhoneConnection {
        let link: PhoneLink
        do {
            link = try PhoneLink(log: options.phoneLog, notify: Terminal.note)
        } catch {
            throw Failure.usage(error.description)
        }
        let studio = try await options.start(phone: link)
        Terminal.note("waiting for the phone: open \(studio.address(of: "/phone")) on it and tap Start")
        guard let source = await link.streamingSource() else { throw CancellationError() }
        return PhoneConnection(studio: studio, sensor: PhoneSensor(link: link, source: source))
    }

    /// Shows a prompt on the phone's page.
    func show(_ prompt: String) { sensor.link.show(prompt: prompt) }

    /// Tells what came from the phone, and stops serving.
    func close(saying farewell: String) {
        Terminal.note(
            "phone: \(sensor.link.receivedReadings.counting("reading")) received, "
                + "\(sensor.heldSamples.counting("held sample")) filling its silences")
        studio.stop(saying: farewell)
    }
}
