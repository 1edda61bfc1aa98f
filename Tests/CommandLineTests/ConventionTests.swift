import Foundation
import GestureTestSupport
import Testing

import struct SystemPackage.FilePath

/// What every command does alike: exit codes and `--version`.
@Suite struct ConventionTests {
    /// Bad usage exits 2, whether the argument parser or the command's own checks find it.
    @Test(arguments: [
        (["stats", "--bogus"], "Error: Unknown option '--bogus'"),
        (["record", "--user", "ann"], "Error: Missing expected argument '--gesture <gesture>'"),
        (["train", "--epochs", "x"], "Error: The value 'x' is invalid for '--epochs <epochs>'"),
        (["record", "--user", "ann", "--gesture", "shake", "--takes", "0"], "gesture: "),
        (["sessions"], "gesture: no recordings folder at recordings"),
        (["devices", "--profiles", "none"], "gesture: no device profiles folder at none"),
    ])
    func badUsageExitsTwo(arguments: [String], message: String) throws {
        let folder = try TemporaryFolder()
        let result = try runGesture(arguments, in: folder.path)
        #expect(result.status == 2)
        #expect(result.error.hasPrefix(message), "\(result.error)")
    }

    @Test(arguments: [["--version"], ["record", "--version"], ["detect", "--version"]])
    func versionIsOneLineOfThreeNumbers(arguments: [String]) throws {
        let result = try runGesture(arguments, in: FilePath("/")).succeeded()
        #expect(result.output.wholeMatch(of: /\d+\.\d+\.\d+\n/) != nil, "\(result.output)")
    }
}
