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
                    warn("espeak-ng could not speak (\(failure)); is there a sound device? Prompts are printed instead")
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

    /// The failure, if espeak-ng did not succeed.
    private static func speak(_ prompt: String, number: Int, voice: Voice) async -> String? {
        var arguments = ["-s", "165"]
        if case .wavFiles(let folder) = voice {
            try? FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true)
            arguments += ["-w", folder.appending(wavName(prompt, number: number)).string]
        }
        arguments.append(prompt)
        do {
            let result = try await run(
                .name("espeak-ng"), arguments: Arguments(arguments),
                output: .discarded, error: .string(limit: 4096))
            // Without a sound device espeak-ng still exits 0; it says so on standard error.
            let complaint = result.standardError.split(separator: "\n").last { $0.hasPrefix("error:") }
            guard result.terminationStatus.isSuccess, complaint == nil else {
                return complaint.map(String.init) ?? "\(result.terminationStatus)"
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// "003-get-ready-to-shake.wav": numbered so the files sort in the order they were said.
    static func wavName(_ prompt: String, number: Int) -> String {
        let words = prompt.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
        let index = String(number)
        return String(repeating: "0", count: max(0, 3 - index.count)) + index + "-" + words + ".wav"
    }
}
