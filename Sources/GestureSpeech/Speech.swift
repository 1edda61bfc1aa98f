import Foundation
import Subprocess

import struct SystemPackage.FilePath

/// Says each prompt to the person without ever making the caller wait: prompts queue up and a task
/// of their own speaks them in order.
public final class Speech: Sendable {
    public enum Voice: Sendable, Equatable {
        /// Print the prompts only.
        case printed
        /// Speak through espeak-ng to the sound card.
        case espeak
        /// Write each prompt as a WAV file, spoken by espeak-ng, into a folder.
        case wavFiles(FilePath)
    }

    private let continuation: AsyncStream<String>.Continuation
    private let speaker: Task<Void, Never>

    /// - Parameters:
    ///   - print: shows each prompt as text, whatever the voice.
    ///   - warn: reports, once, that speech is not possible and prompts are only printed.
    public init(
        voice: Voice, print: @escaping @Sendable (String) -> Void,
        warn: @escaping @Sendable (String) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        self.continuation = continuation
        speaker = Task {
            var voice = voice
            if voice != .printed, Self.espeakPath == nil {
                warn("espeak-ng was not found; prompts are printed instead (apt-get install espeak-ng)")
                voice = .printed
            }
            var number = 0
            for await prompt in stream {
                number += 1
                print(prompt)
                guard voice != .printed else { continue }
                if let failure = await Self.speak(prompt, number: number, voice: voice) {
                    warn(failure)
                    voice = .printed
                }
            }
        }
    }

    public func say(_ text: String) { continuation.yield(text) }

    /// Waits until every prompt said so far has been spoken.
    public func finish() async {
        continuation.finish()
        await speaker.value
    }

    static var espeakPath: String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/espeak-ng" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The warning, if espeak-ng did not speak the prompt or write its file.
    private static func speak(_ prompt: String, number: Int, voice: Voice) async -> String? {
        let file = wavFile(for: prompt, number: number, voice: voice)
        let arguments = ["-s", "165"] + (file.map { ["-w", $0.string] } ?? []) + [prompt]
        do {
            let result = try await run(
                .name("espeak-ng"), arguments: Arguments(arguments),
                output: .discarded, error: .string(limit: 4096))
            // Without a sound device, or unable to write the file, espeak-ng still exits 0; it says
            // so on standard error, or on standard output.
            let complaint = result.standardError.split(separator: "\n").last { $0.hasPrefix("error:") }
            guard result.terminationStatus.isSuccess, complaint == nil else {
                let failure = complaint.map(String.init) ?? "\(result.terminationStatus)"
                return "espeak-ng could not speak (\(failure)); is there a sound device? Prompts are printed instead"
            }
            if let file, !FileManager.default.fileExists(atPath: file.string) {
                return "espeak-ng could not write \(file); prompts are printed instead"
            }
            return nil
        } catch {
            return "espeak-ng could not speak (\(error)); prompts are printed instead"
        }
    }

    /// Where `voice` writes the prompt, its folder made; nil when it is spoken aloud.
    private static func wavFile(for prompt: String, number: Int, voice: Voice) -> FilePath? {
        guard case .wavFiles(let folder) = voice else { return nil }
        try? FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true)
        return folder.appending(wavName(prompt, number: number))
    }

    /// "003-get-ready-to-shake.wav": numbered so the files sort in the order they were said.
    static func wavName(_ prompt: String, number: Int) -> String {
        let words = prompt.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
        let index = String(number)
        return String(repeating: "0", count: max(0, 3 - index.count)) + index + "-" + words + ".wav"
    }
}
