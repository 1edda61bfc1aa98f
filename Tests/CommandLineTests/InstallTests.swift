import Foundation
import GestureArchive
import GestureStore
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// `scripts/install` puts the tool, its profiles and its completions where a user's system looks
/// for them, and the installed tool finds them.
@Suite struct InstallTests {
    /// What bash's completion offers for `words`, the last being the word completed, through the
    /// installed completion script.
    private func completions(_ words: [String], prefix: FilePath, in folder: FilePath) throws -> [String] {
        let script = """
            source "$PREFIX/share/bash-completion/completions/gesture"
            COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            _gesture gesture "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = ProcessInfo.processInfo.environment
        environment["PREFIX"] = prefix.string
        environment["PATH"] = prefix.appending("bin").string + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let result = try runGesture(
            ["-c", script, "bash"] + words, in: folder, environment: environment, executable: "/bin/bash")
        return try result.succeeded().output.split(separator: "\n").map(String.init)
    }

    @Test func theInstalledToolFindsItsProfilesAndCompletesNamesFromTheRecordings() async throws {
        let folder = try TemporaryFolder()
        let prefix = folder.path.appending("prefix")
        let built = (gestureExecutable as NSString).deletingLastPathComponent
        try runGesture(
            ["--prefix", prefix.string, "--from", built], in: .init(Repository.root.path),
            executable: Repository.path("scripts/install")
        ).succeeded()
        for file in [
            "bin/gesture", "bin/gesture-detect", "share/gesturelab/devices/10-mpu6050.profile",
            "share/zsh/site-functions/_gesture", "share/fish/vendor_completions.d/gesture.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix.appending(file).string), "\(file)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = folder.path.string
        environment["XDG_CONFIG_HOME"] = nil
        let devices = try runGesture(
            ["devices"], in: folder.path, environment: environment, executable: prefix.appending("bin/gesture").string)
        #expect(devices.error.hasPrefix("gesture: device profiles from \(prefix.string)/share/gesturelab/devices\n"))

        let outcome = try await recordFast(try plan("ann", "wave", takes: 2), in: folder.recordings)
        try Archive(folder: folder.recordings).discard([outcome.sessions[1].id], reason: "test")
        #expect(try completions(["gesture", "record", "--user", ""], prefix: prefix, in: folder.path) == ["ann"])
        #expect(
            try completions(["gesture", "stats", "--gesture", ""], prefix: prefix, in: folder.path)
                == ["chop", "drive", "shake", "wave"])
        #expect(
            try completions(["gesture", "discard", ""], prefix: prefix, in: folder.path)
                == [outcome.sessions[0].id.rawValue])
        #expect(
            try completions(["gesture", "restore", ""], prefix: prefix, in: folder.path)
                == [outcome.sessions[1].id.rawValue])
        #expect(try completions(["gesture", "record", "--device", ""], prefix: prefix, in: folder.path).first == "sim")
    }
}

/// `gesture detect` runs the lean `gesture-detect`, which links neither Foundation nor its ICU: its
/// release build links the Swift runtime statically, where Foundation's ICU would not link at all.
@Suite struct LeanDetectorTests {
    /// The detector under test: the installed one (`GESTURE_BIN`) when given, else the build's.
    private var detector: String {
        ProcessInfo.processInfo.environment["GESTURE_BIN"].map { $0 + "/gesture-detect" }
            ?? builtExecutable("gesture-detect")
    }

    @Test func theDetectorLinksNoFoundation() throws {
        let libraries = try runGesture([detector], in: .init("/"), executable: "/usr/bin/ldd").output
        let symbols = try runGesture([detector], in: .init("/"), executable: "/usr/bin/nm").succeeded().output
        #expect(symbols.contains("GestureLive"), "nm read the detector's symbols")
        for foundation in ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU"] {
            #expect(!libraries.contains(foundation), "\(foundation) in \(libraries)")
        }
        for module in ["30FoundationInternationalization", "10Foundation", "swift_unumf_"] {
            #expect(!symbols.contains(module), "\(module)")
        }
    }
}
