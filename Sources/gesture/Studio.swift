import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureSensors
import GestureSpeech
import GestureStore
import GestureStudio

import struct SystemPackage.FilePath

#if canImport(Glibc)
import Glibc
#endif

struct Studio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Serve GestureLab Studio: the live signal, recording, the sessions and their labels, training, detections, and the phone's page.",
        discussion: """
            Prints the address to open, with its access token; a request without the token is refused. \
            Runs until Ctrl-C.
            """)

    @OptionGroup var server: ServerOptions
    @OptionGroup var folder: FolderOptions
    @OptionGroup var profiles: ProfileOptions
    @Option(help: "A model file `gesture train` wrote, for the detection view; repeat for more.")
    var model: [String] = []

    @Flag(help: "Print the recording view's prompts instead of speaking them.")
    var quiet = false

    @Option(
        name: .customLong("speech-to"),
        help: "Write each prompt the recording view says as a WAV file into this folder.")
    var speechTo: String?

    func run() async throws {
        for path in model { _ = try loadModel(path) }
        let views = StudioViews(
            recordings: StudioRecordings(
                folder: folder.folder, rules: CleaningRules(ranges: DeviceDirectory.knownRanges)),
            devices: StudioDevices(
                directory: DeviceDirectory(profiles: try profiles.load()), models: model, folder: folder.folder),
            voice: speechTo.map { .wavFiles(FilePath($0)) } ?? (quiet ? .printed : .espeak))
        if let running = StudioAnnouncement.find(in: folder.folder) {
            throw Failure.failed(
                "studio: gesture studio serves \(folder.folder.root) already, at \(running.url): open it, or end it first"
            )
        }
        let phones = try server.pairing(slots: PhonePairing.studioSlots)
        let studio = try await server.start(phones: phones, folder: folder.folder, views: views)
        let announced: RunningStudio.Announced
        do {
            announced = try studio.announce(in: folder.folder)
        } catch {
            await studio.stop(saying: "Studio closed")
            throw Failure.failed("studio: \(error)")
        }
        defer { announced.withdraw() }
        Terminal.say(studio.address(of: "/"))
        Terminal.note(
            "open the address above, or \(studio.address(of: "/phone")) on each phone (up to "
                + "\(PhonePairing.studioSlots)); Ctrl-C ends")
        server.showCode(of: studio.address(of: "/phone"))
        let stop = AsyncStream<Void>.makeStream()
        let watch = SignalWatch { _ in stop.continuation.finish() }
        for await _ in stop.stream {}
        await studio.stop(saying: "Studio closed")
        withExtendedLifetime(watch) {}
    }
}

/// Where the studio's server listens: its own command's, or the one a command reading the phone starts.
struct ServerOptions: ParsableArguments {
    @Option(help: "The port the phone's page is served on (0: any free one).")
    var port = 8080

    @Flag(
        help: """
            Serve the LAN over HTTPS, with a self-signed certificate kept in <recordings>/.studio, and show a \
            QR code of the phone's address.
            """)
    var lan = false

    /// Every reading the phone sends, as received, for tests to compare with what they played.
    @Option(name: .customLong("phone-log"), help: .hidden)
    var phoneLog: String?

    func validate() throws {
        do { try Failure.check("--port", port, in: 0...65535) } catch { throw ValidationError(error.message) }
    }

    /// The phones' pages, `slots` at once, noting their comings and goings.
    func pairing(slots: Int) throws -> PhonePairing {
        do {
            return try PhonePairing(slots: slots, log: phoneLog, notify: Terminal.note)
        } catch {
            throw Failure.usage(error.description)
        }
    }

    /// Starts serving; on the LAN with the certificate kept in `folder`.
    func start(phones: PhonePairing, folder: RecordingsFolder, views: StudioViews? = nil) async throws -> RunningStudio
    {
        do {
            guard lan else { return try await StudioServer(phones: phones, port: port, views: views).start() }
            let addresses = machineAddresses()
            let certificate = try StudioCertificate.load(
                from: folder.root.appending(".studio").string, naming: addresses)
            return try await StudioServer(
                phones: phones, host: addresses[0], port: port, certificate: certificate, views: views
            ).start()
        } catch {
            throw Failure.usage("studio: \(error)")
        }
    }

    /// A QR code of `address` on a terminal, for the phone's camera, on the LAN.
    func showCode(of address: String) {
        guard lan, isatty(STDERR_FILENO) == 1, let code = try? QRCode(address) else { return }
        for line in code.terminalLines() { Terminal.note(line) }
    }
}

/// `--device phone`: the phone paired with the `gesture studio` that serves the recordings folder,
/// read through the studio; else the studio's server started for the command, the phone's page
/// waited for.
struct PhoneConnection {
    private enum Serving {
        case own(RunningStudio)
        case studio(RelayedPhone)
    }

    private let serving: Serving
    let sensor: PhoneSensor

    /// When `sensor` names the phone: `--fast` refused before serving, then the page waited for.
    static func open(
        for sensor: SensorOptions, fast: Bool, _ options: ServerOptions, folder: RecordingsFolder
    ) async throws -> PhoneConnection? {
        guard sensor.device == PhoneSensor.id else { return nil }
        if fast { throw Failure.fastNeedsSimulatedTime }
        return try await open(options, folder: folder)
    }

    /// The phone's sensor through its device profile.
    func device(through options: SensorOptions) throws -> any MotionSensor {
        try options.directory().profiled(sensor, mounting: true)
    }

    static func open(_ options: ServerOptions, folder: RecordingsFolder) async throws -> PhoneConnection {
        if let studio = StudioAnnouncement.find(in: folder) {
            Terminal.note("reading the phone paired with gesture studio at \(studio.url), which serves \(folder.root)")
            let phone: RelayedPhone
            do { phone = try await RelayedPhone.connect(to: studio) } catch { throw Failure.failed("phone: \(error)") }
            return PhoneConnection(serving: .studio(phone), sensor: PhoneSensor(link: phone.link, source: phone.source))
        }
        let phones = try options.pairing(slots: 1)
        let link = phones.first
        let studio = try await options.start(phones: phones, folder: folder)
        Terminal.note("waiting for the phone: open \(studio.address(of: "/phone")) on it and tap Start")
        options.showCode(of: studio.address(of: "/phone"))
        guard let source = await link.streamingSource() else { throw CancellationError() }
        return PhoneConnection(serving: .own(studio), sensor: PhoneSensor(link: link, source: source))
    }

    /// Shows a prompt on the phone's page.
    func show(_ prompt: String) { sensor.link.show(prompt: prompt) }

    /// Tells what came from the phone, and stops serving.
    func close(saying farewell: String) async {
        Terminal.note(
            "phone: \(sensor.link.receivedReadings.counting("reading")) received, "
                + "\(sensor.heldSamples.counting("held sample")) filling its silences")
        switch serving {
        case .own(let studio): await studio.stop(saying: farewell)
        case .studio(let phone): await phone.close(saying: farewell)
        }
    }
}
