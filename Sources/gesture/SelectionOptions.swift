import ArgumentParser
import Foundation
import GestureAnalysis
import GestureCommandLine
import GestureCore
import GestureStore

import struct SystemPackage.FilePath

/// Which recorded sessions an analysis command works on.
struct SelectionOptions: ParsableArguments {
    @Option(
        name: .customLong("gesture"), help: "Only sessions of this gesture (repeatable).",
        completion: Completions.gestures)
    var gestures: [String] = []

    @Option(name: .customLong("user"), help: "Only this user's sessions (repeatable).", completion: Completions.users)
    var users: [String] = []

    @Option(name: .customLong("session"), help: "Only this session (repeatable).", completion: Completions.sessions)
    var sessions: [String] = []

    @Option(help: "Only the sessions a manifest names (from `gesture split` or `gesture balance`).")
    var manifest: String?

    @Option(help: "With --manifest: only this part of it (train, validation, test, sessions).")
    var part: String?

    @Flag(name: .customLong("include-discarded"), help: "Also the discarded sessions in recordings/discarded/.")
    var includeDiscarded = false

    @Option(help: "Downsample to this rate in Hz, e.g. 40 for recordings made at 80.")
    var rate: Double?

    /// The folder's sessions, selected and downsampled as asked.
    func dataset(in folder: FolderOptions) throws -> Dataset {
        var progress = ProgressLine()
        defer { progress.clear() }
        return try analysing {
            let loaded = try DatasetLoader(folder: folder.folder, includeDiscarded: includeDiscarded).load {
                progress.show("reading \(folder.path): \(Int($0 * 100)) %")
            }
            let selection = SessionSelection(
                gestures: try gestures.map(activityLabel), users: try users.map(userID),
                sessions: sessions.map(SessionID.init(rawValue:)), manifest: try manifestSessions())
            let selected = try selection.apply(to: loaded)
            return try rate.map { try selected.downsampled(to: $0) } ?? selected
        }
    }

    private func manifestSessions() throws -> [SessionID]? {
        guard let manifest else {
            if part != nil { throw Failure.usage("--part needs --manifest") }
            return nil
        }
        let text: String
        do { text = try String(contentsOfFile: manifest, encoding: .utf8) } catch {
            throw Failure.usage("cannot read the manifest \(manifest): \(fileErrorReason(error))")
        }
        let parsed: Manifest
        do { parsed = try Manifest(text: text, file: manifest) } catch { throw Failure.usage(error.description) }
        guard let part else { return parsed.entries.map(\.session) }
        guard let chosen = Manifest.Part(rawValue: part) else {
            throw Failure.usage(
                "--part \(part): expected one of \(Manifest.Part.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return parsed.sessions(in: chosen)
    }
}

/// Runs analysis code, turning its errors into one-line usage failures that name the options.
func analysing<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as AnalysisError {
        throw Failure.usage(error.commandLineDescription)
    } catch let error as UnknownFeature {
        throw Failure.usage(error.description)
    }
}

extension AnalysisError {
    /// The message with the option at fault before it and the option that helps after it.
    var commandLineDescription: String {
        let message = remedy.map { "\(description); try \($0.option)" } ?? description
        return setting.map { "\($0.option): \(message)" } ?? message
    }
}

extension AnalysisSetting {
    /// The option of `gesture` that sets it.
    var option: String {
        switch self {
        case .columnMapping: "--map"
        case .mirror: "--mirror"
        case .user: "--user"
        case .label: "--as"
        case .sampleRate: "--sample-rate"
        case .rate: "--rate"
        case .downsample(let rate): "--rate \(rate.shortText)"
        case .splitShares: "--validation/--test"
        case .splitBy(let strategy): "--by \(strategy.rawValue)"
        case .testUsers: "--test-users"
        case .validationUsers: "--validation-users"
        case .includeDiscarded: "--include-discarded"
        case .slice: "--from/--to"
        }
    }
}

/// Writes a command's output file (`writeOutput`), or fails with one line.
func write(_ text: String, to path: String) throws {
    try write(Array(text.utf8), to: path)
}

func write(_ bytes: [UInt8], to path: String) throws {
    try changing { try writeOutput(bytes, to: FilePath(path)) }
}
