import Foundation
import GestureCore
import GestureTestSupport
import Testing

/// The exported `gesture_detect.c`, built with its Makefile for this machine and for aarch64 Linux (run
/// in qemu-aarch64), fed a recording's raw readings as CSV: it prints what `gesture detect` prints on
/// a replay of the same recording.
@Suite struct BoardCommandTests {
    private static let aarch64 = ["/usr/bin/aarch64-linux-gnu-gcc", "/usr/bin/qemu-aarch64"]
    private static let aarch64Missing: Comment =
        "needs gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and qemu-user (scripts/setup --tests installs them)"

    @Test func theExportedDetectorPrintsWhatGestureDetectPrints() throws {
        let folder = try trained
        try export(to: "board")
        let built = try make(in: "board")
        for (file, rate) in [("unseen/zed-recordings.csv", 25), ("unseen/fast-recordings.csv", 100)] {
            let expected = try detections(onReplayOf: file)
            let readings = try readingsCSV(of: file)
            let found = try runGesture(["\(rate)"], in: folder.path, executable: built, input: readings).succeeded()
            #expect(!expected.isEmpty && found.output == expected, "\(file)")
        }
    }

    /// Exported with `--reject off`, it prints what `gesture detect --reject off` prints; `--reject` is
    /// the C library's alone.
    @Test func exportedWithoutRejectionItPrintsWhatGestureDetectPrintsWithout() throws {
        let folder = try trained
        try export(to: "board-no-reject", ["--reject", "off"])
        let built = try make(in: "board-no-reject")
        let file = "unseen/zed-recordings.csv"
        let expected = try detections(onReplayOf: file, ["--reject", "off"])
        let found = try runGesture(["25"], in: folder.path, executable: built, input: try readingsCSV(of: file))
            .succeeded()
        #expect(!expected.isEmpty && found.output == expected)
        let header = try String(
            contentsOfFile: folder.path.appending("board-no-reject/gesture_model.h").string, encoding: .utf8)
        #expect(header.contains("sets it to 0 (`gesture export --reject off`)"))
        let onnx = try runGesture(
            ["export", "m.model", "--format", "onnx", "-o", "m.onnx", "--reject", "off"], in: folder.path)
        #expect(onnx.status == 2 && onnx.error.hasPrefix("gesture: --reject is for --format c only"))
    }

    @Test(.enabled(if: aarch64.allSatisfy(FileManager.default.isExecutableFile), aarch64Missing))
    func onAarch64LinuxTheExportedDetectorPrintsWhatGestureDetectPrints() throws {
        let folder = try trained
        try export(to: "board-aarch64")
        let built = try make(in: "board-aarch64", compiler: Self.aarch64[0])
        let file = "unseen/zed-recordings.csv"
        let found = try runGesture(
            ["-L", "/usr/aarch64-linux-gnu", built, "25"], in: folder.path, executable: Self.aarch64[1],
            input: try readingsCSV(of: file)
        ).succeeded()
        let expected = try detections(onReplayOf: file)
        #expect(!expected.isEmpty && found.output == expected)
    }

    /// A sensor mounted with x and y swapped, whose axes then map as `y -x z`, reading half of g and
    /// twice the rad/s, as its profile says: the library turns and scales its readings back.
    @Test func theProfileChosenAtExportMapsTheSensorsAxes() throws {
        let folder = try trained
        let profiles = folder.path.appending("turned-profiles")
        try FileManager.default.createDirectory(atPath: profiles.string, withIntermediateDirectories: true)
        let profile = [
            "name = turned", "match = turned*", "mount-matrix = 0 1 0; 1 0 0; 0 0 1", "axes = y -x z",
            "acceleration-scale = 2", "rotation-scale = 0.5", "rate = 100",
        ]
        try profile.joined(separator: "\n").write(
            toFile: profiles.appending("10-turned.profile").string, atomically: true, encoding: .utf8)
        try export(to: "turned", ["--profiles", "turned-profiles", "--profile", "turned"])
        let header = try String(contentsOfFile: folder.path.appending("turned/gesture_model.h").string, encoding: .utf8)
        #expect(header.contains("#define GESTURE_BOARD_RATE 100.0"))
        let built = try make(in: "turned")
        let file = "unseen/fast-recordings.csv"
        let turned = try readingsCSV(
            of: file, acceleration: { Vector3($0.x, -$0.y, $0.z) / 2 }, rotation: { Vector3($0.x, -$0.y, $0.z) * 2 })
        let found = try runGesture([], in: folder.path, executable: built, input: turned).succeeded()
        let expected = try detections(onReplayOf: file)
        #expect(!expected.isEmpty && found.output == expected)
        try export(to: "unturned")
        let unturned = try runGesture(["100"], in: folder.path, executable: try make(in: "unturned"), input: turned)
        #expect(try unturned.succeeded().output != expected, "without the profile, the turned readings differ")
    }

    @Test func badReadingsAreOneLineNamingTheLineAndExitCodeTwo() throws {
        let folder = try trained
        try export(to: "board-bad")
        let built = try make(in: "board-bad")
        let cases = [
            (["25"], "time,ax,ay,az,gx,gy,gz\n0,0,0,1,0,0,0\n0.04,0,0,1,0,0\n", "line 3: expected time,ax,ay,az"),
            (["25"], "0,0,0,1,0,0,0\n0,0,0,1,0,0,0\n", "line 2: time 0 is not after the one before it"),
            (["30"], "", "RATE 30 Hz is not a whole multiple of the model's 25 Hz"),
            (["fast"], "", "RATE fast is not a positive number"),
            (["--rate"], "", "usage: gesture_detect [--iio NAME[+NAME] | --evdev DEVICE]"),
            (["--iio", "nothing_3d+gyro_3d"], "", "nothing_3d+gyro_3d: no IIO device named 'nothing_3d'"),
            (["--evdev", "/dev/input/nothing"], "", "/dev/input/nothing: cannot open it: No such file or directory"),
            (["--iio", "a", "--evdev", "b"], "", "usage: gesture_detect"),
        ]
        for (arguments, input, message) in cases {
            let result = try runGesture(arguments, in: folder.path, executable: built, input: input)
            #expect(result.status == 2 && result.error.contains(message), "\(result.error)")
            #expect(result.error.split(separator: "\n").count == 1)
        }
        let unknown = try runGesture(
            [
                "export", "m.model", "--format", "c", "-o", "x", "--profiles", Repository.path("devices"), "--profile",
                "nothing",
            ],
            in: folder.path)
        #expect(unknown.status == 2 && unknown.error.contains("--profile nothing: no such device profile; known: "))
        #expect(unknown.error.contains("mpu6050"))
        let none = try runGesture(
            ["export", "m.model", "--format", "c", "-o", "x", "--profile", "mpu6050"], in: folder.path)
        #expect(none.status == 2 && none.error.contains("--profile mpu6050: no device profiles found"))
    }

    /// `--readings` writes each reading read as the CSV standard input takes, exactly: read back, they
    /// give the same detections; `--count` stops after that many.
    @Test func theDetectorWritesTheReadingsItReadAndStopsAtACount() throws {
        let folder = try trained
        try export(to: "board-readings")
        let built = try make(in: "board-readings")
        let readings = try readingsCSV(of: "unseen/fast-recordings.csv")
        let all = try runGesture(
            ["--rate", "100", "--readings", "read.csv"], in: folder.path, executable: built, input: readings
        )
        .succeeded()
        let written = try String(contentsOfFile: folder.path.appending("read.csv").string, encoding: .utf8)
        let numbers = { (text: String) in
            text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
        }
        #expect(written.hasPrefix("time,ax,ay,az,gx,gy,gz\n") && numbers(written) == numbers(readings))
        let again = try runGesture(["100"], in: folder.path, executable: built, input: written).succeeded()
        #expect(!all.output.isEmpty && again.output == all.output)
        try runGesture(
            ["--count", "7", "--readings", "seven.csv"], in: folder.path, executable: built, input: readings
        )
        .succeeded()
        let seven = try String(contentsOfFile: folder.path.appending("seven.csv").string, encoding: .utf8)
        #expect(numbers(seven) == Array(numbers(readings).prefix(7)))
    }

    /// An MPU-6050 as the kernel's inv_mpu6050 driver shows it, in a made-up sysfs the build points
    /// gesture_detect to: one device, accelerometer and gyroscope big-endian in one scan with the
    /// temperature (disabled) between them, the timestamp last, a mount matrix, rates to choose from;
    /// its buffer's scans in a file, stamped by a clock of its own that is not the kernel's. It reads
    /// each scan converted as GestureLab converts it, at the stamps' intervals from the moment it read
    /// the first, and sets the device up as the kernel's ABI asks, then releases its buffer.
    @Test func theDetectorReadsAnMPU6050sScansAsTheKernelLaysThemOut() throws {
        let folder = try trained
        try export(to: "board-iio")
        let root = folder.path.appending("board-iio/made-up").string
        let device = "\(root)/sys/iio:device0"
        var files = [
            "name": "mpu6050", "in_accel_scale": "0.000598", "in_anglvel_scale": "0.000133090",
            "in_mount_matrix": "0, 1, 0; -1, 0, 0; 0, 0, 1", "sampling_frequency": "50",
            "sampling_frequency_available": "10 20 50 100 200 500", "current_timestamp_clock": "realtime",
            "buffer/enable": "0", "buffer/length": "1", "trigger/current_trigger": "",
        ]
        let elements = ["accel_x", "accel_y", "accel_z", "temp", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp"]
        for (index, element) in elements.enumerated() {
            files["scan_elements/in_\(element)_en"] = element == "temp" ? "1" : "0"
            files["scan_elements/in_\(element)_index"] = "\(index)"
            files["scan_elements/in_\(element)_type"] = element == "timestamp" ? "le:s64/64>>0" : "be:s16/16>>0"
        }
        for (name, text) in files { try write(text, to: "\(device)/\(name)") }
        try write("mpu6050-dev0", to: "\(root)/sys/trigger0/name")
        // Less than a second of scans: read faster than they were taken, more would run over the
        // second by which a device's clock may lead and be anchored again.
        let rows = try readRows(folder.path.appending("unseen/fast-recordings.csv")).prefix(90)
        func count(_ value: Double, per step: Double) -> Int16 { Int16(clamping: Int((value / step).rounded())) }
        let counts: [[Int16]] = rows.map { row in
            let a = row.rawAcceleration * 9.806_65, g = row.rawRotationRate
            let acceleration = [a.x, a.y, a.z].map { count($0, per: 0.000598) }
            return acceleration + [g.x, g.y, g.z].map { count($0, per: 0.000133090) }
        }
        // Six big-endian counts, 4 bytes of padding to align the timestamp, the little-endian nanoseconds.
        var scans: [UInt8] = []
        for (index, six) in counts.enumerated() {
            for value in six { scans += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] }
            scans += [0, 0, 0, 0]
            withUnsafeBytes(of: (5_000_000_000 + Int64(index) * 10_000_000).littleEndian) { scans += $0 }
        }
        try FileManager.default.createDirectory(atPath: "\(root)/dev", withIntermediateDirectories: true)
        try Data(scans).write(to: URL(fileURLWithPath: "\(root)/dev/iio:device0"))
        let built = try make(in: "board-iio", defines: ["IIO_ROOT": "\(root)/sys", "IIO_NODES": "\(root)/dev"])
        let started = monotonicNow()
        try runGesture(
            ["--iio", "mpu6050", "--rate", "100", "--count", "90", "--readings", "iio.csv"], in: folder.path,
            executable: built
        ).succeeded()
        let ended = monotonicNow()
        let read = try String(contentsOfFile: folder.path.appending("iio.csv").string, encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
        let expected: [[Double]] = counts.enumerated().map { index, six in
            let a: [Double] = six[0..<3].map { Double($0) * 0.000598 / 9.806_65 }
            let g: [Double] = six[3...].map { Double($0) * 0.000133090 }
            return [Double(index) * 0.01, a[1], -a[0], a[2], g[1], -g[0], g[2]]
        }
        #expect(read.count == 90)
        let first = try #require(read.first?.first)
        #expect(first >= started && first <= ended)
        let fromFirst = read.map { [$0[0] - first] + $0.dropFirst() }
        #expect(zip(fromFirst, expected).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) <= 1e-9 } })
        let after = { (name: String) in try String(contentsOfFile: "\(device)/\(name)", encoding: .utf8) }
        #expect(try after("buffer/enable") == "0" && after("trigger/current_trigger") == "mpu6050-dev0")
        #expect(try after("sampling_frequency") == "100.000000" && after("current_timestamp_clock") == "monotonic")
        #expect(try after("scan_elements/in_temp_en") == "0" && after("scan_elements/in_anglvel_z_en") == "1")
    }

    /// A made-up sysfs attribute.
    private func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try (text + "\n").write(toFile: path, atomically: false, encoding: .utf8) // as sysfs shows them
    }

    /// `--size board` trains the preset, whose int8 C library fits a Cortex-M4 with 256 KB of flash
    /// and 64 KB of RAM.
    @Test func theBoardSizeFitsACortexM4InInt8() throws {
        let folder = try trained
        try runGesture(["train", "--size", "board", "--epochs", "2", "--output", "board.model"], in: folder.path)
            .succeeded()
        let result = try runGesture(
            ["export", "board.model", "--format", "c", "--weights", "int8", "-o", "board-int8"], in: folder.path
        ).succeeded()
        let numbers = result.output.split(separator: ",").flatMap { $0.split(separator: " ") }.compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] <= 256 * 1024 && numbers[1] <= 64 * 1024, "\(result.output)")
        let header = try String(
            contentsOfFile: folder.path.appending("board-int8/gesture_model.h").string, encoding: .utf8)
        #expect(header.contains("#define GESTURE_UNITS 32\n"))
    }

    private func export(to output: String, _ options: [String] = []) throws {
        let result = try runGesture(
            ["export", "m.model", "--format", "c", "-o", output, "--threshold", "0.6"] + options, in: trained.path
        ).succeeded()
        #expect(
            result.output.hasPrefix("wrote \(output)/gesture_model.h, gesture_model.c, gesture_detect.c and Makefile"))
    }

    /// Builds gesture_detect with the exported Makefile, every warning an error; its path.
    private func make(in output: String, compiler: String = "cc", defines: [String: String] = [:]) throws -> String {
        let folder = try trained.path.appending(output)
        let macros = defines.map { " -D\($0.key)=\\\"\($0.value)\\\"" }.joined()
        try runGesture(
            ["-C", folder.string, "CC=\(compiler)", "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror -pedantic\(macros)"],
            in: folder, executable: "/usr/bin/make"
        ).succeeded()
        return folder.appending("gesture_detect").string
    }

    /// What `gesture detect` prints on a replay of `file`, with the exported detector's threshold and
    /// rejection, as the export has them.
    private func detections(onReplayOf file: String, _ options: [String] = []) throws -> String {
        try runGesture(
            ["detect", "--model", "m.model", "--fast", "--threshold", "0.6", "--device", "replay:\(file)"] + options,
            in: trained.path
        ).succeeded().output
    }

    /// The raw readings of a recording as gesture_detect reads them, through a sensor's eyes: at
    /// the times a replay plays them, from 1000 s on the simulated clock, sessions laid end to end a
    /// sample period apart.
    private func readingsCSV(
        of file: String, acceleration: (Vector3) -> Vector3 = { $0 }, rotation: (Vector3) -> Vector3 = { $0 }
    ) throws -> String {
        let rows = try readRows(trained.path.appending(file))
        let period = 1 / ((1e6 / (rows.medianInterval ?? 0.01)).rounded() / 1e6)
        var offsets: [Double] = []
        var sessionStart = 0.0
        for (index, row) in rows.enumerated() {
            if index > 0, row.session != rows[index - 1].session {
                sessionStart = offsets[index - 1] + period - row.timestamp
            }
            offsets.append(sessionStart + row.timestamp - rows[0].timestamp)
        }
        let lines = zip(rows, offsets).map { row, offset in
            let a = acceleration(row.rawAcceleration), g = rotation(row.rawRotationRate)
            return ([1000 + offset] + [a.x, a.y, a.z, g.x, g.y, g.z]).map { "\($0)" }.joined(separator: ",")
        }
        return "time,ax,ay,az,gx,gy,gz\n" + lines.joined(separator: "\n") + "\n"
    }
}

/// Seconds on CLOCK_MONOTONIC, the clock the IIO readings are timed on.
private func monotonicNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
}
