import ArgumentParser
import GestureAnalysis
import GestureCommandLine
import GestureCore

import struct SystemPackage.FilePath

struct Import: ParsableCommand, NumberChecking {
    static let configuration = CommandConfiguration(
        abstract:
            "Import a long-format CSV from another tool into the recordings folder, computing the device-motion features.",
        discussion: """
            Example (seglearn's watch dataset):
              gesture import seglearn-watch.csv --sample-rate 50 \\
                --map user=subject,session=recording,label=exercise,accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz
            A long recording of everyday motion, as background that training learns never to report (no \
            session column: the file is one session):
              gesture import walk.csv --user ann --as other --map time=t,accelX=ax,accelY=ay,accelZ=az,gyroX=wx,gyroY=wy,gyroZ=wz
            """)

    @Argument(help: "The CSV file: a header, then one sample per line.")
    var file: String

    @Option(
        help:
            "<field>=<column>,… for the fields user, session, label, time, accelX, accelY, accelZ, gyroX, gyroY, gyroZ."
    )
    var map: String

    @Option(help: "The user of every session, when the file has no user column.")
    var user: String?

    @Option(
        name: .customLong("as"),
        help: "The label of every row, when the file has no label column: other for background.",
        completion: Completions.gestures)
    var label: String?

    @Option(name: .customLong("sample-rate"), help: "Samples per second, when the file has no time column.")
    var sampleRate: Double?

    @Option(name: .customLong("accel-unit"), help: "The accelerometer's unit: g or m/s2.")
    var accelUnit: ImportOptions.AccelerationUnit = .g

    @Option(name: .customLong("gyro-unit"), help: "The gyroscope's unit: rad/s or deg/s.")
    var gyroUnit: ImportOptions.RotationUnit = .radiansPerSecond

    @Flag(
        name: .customLong("gravity-removed"),
        help:
            "The accelerometer has gravity taken out; gravity and attitude then come from the gyroscope alone, from an assumed level start."
    )
    var gravityRemoved = false

    @Option(
        help:
            "<column>=<value>: reflect the rows where the column holds the value onto the other wrist, e.g. side=left.")
    var mirror: String?

    @Option(name: .customLong("mirror-axis"), help: "The device axis --mirror reflects across: x, y or z.")
    var mirrorAxis: DeviceAxis = .x

    @OptionGroup var folder: FolderOptions

    func checkNumbers() throws {
        if let sampleRate { try Failure.check("--sample-rate", sampleRate, in: 0.1...100_000, being: "a number of Hz") }
    }

    func run() throws {
        try checkNumbers()
        var options = ImportOptions()
        options.accelerationUnit = accelUnit
        options.rotationUnit = gyroUnit
        options.gravityRemoved = gravityRemoved
        options.sampleRate = sampleRate
        options.user = user
        options.label = try label.map(activityLabel)
        options.mirror = try analysing {
            try mirror.map { condition throws(AnalysisError) in
                try MirrorRule(condition, mirroring: Mirroring(across: mirrorAxis))
            }
        }
        var progress = ProgressLine()
        let summary = try analysing {
            try Importer(
                folder: folder.folder, mapping: ColumnMapping(map), options: options, waiting: .saying(Terminal.note)
            ).run(FilePath(file)) { step in
                switch step {
                case .reading(let fraction): progress.show("reading \(file): \(Int(fraction * 100)) %")
                case .converting(let user, let index, let count):
                    progress.show("computing device motion and writing \(user)'s sessions (\(index + 1) of \(count))")
                }
            }
        }
        progress.clear()
        Terminal.say(
            (summary.wasComplete ? "\(file) was imported already: " : "imported ")
                + "\(summary.sessions.count.counting("session")), \(summary.users.count.counting("user")), \(summary.rowCount.counting("sample")) from \(file)"
        )
        Terminal.say(
            Summary.table(
                header: ["file", "sessions"],
                rows: summary.files.map { path in
                    [path.string, "\(summary.sessions.filter { $0.file == folder.folder.relative(path) }.count)"]
                }))
    }
}

extension ImportOptions.AccelerationUnit: ExpressibleByArgument {}
extension ImportOptions.RotationUnit: ExpressibleByArgument {}
extension DeviceAxis: ExpressibleByArgument {}
