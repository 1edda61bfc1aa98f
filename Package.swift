// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "GestureLab",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gesture", targets: ["gesture"]),
        .executable(name: "gesture-bench", targets: ["gesture-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // Plain value types and formats: samples, labels, session IDs, device motion, features, the CSV
        // format, the sensor interface. Imports nothing of ours.
        .target(name: "GestureCore"),

        // Foundations.
        // Motion maths: quaternions, the attitude filter, seeded random numbers, timing statistics, aligning
        // labels with the motion.
        .target(name: "GestureMotion", dependencies: ["GestureCore"]),
        // Storage: the recordings folder, the CSV appender, locks, the catalog (SQLite).
        .target(
            name: "GestureStore",
            dependencies: [
                "GestureCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The archive: discard and restore, label editing (align, relabel, trim, undo, segment), check, repair.
        .target(
            name: "GestureArchive",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The simulated IMU in a simulated hand, its gestures and faults, and the simulated player.
        .target(name: "GestureSimulation", dependencies: ["GestureCore", "GestureMotion"]),

        // Sensors.
        // The few Linux calls Swift cannot make directly.
        .target(name: "CLinux"),
        // libevdev (Debian: libevdev-dev), for input-device sensors.
        .systemLibrary(name: "CLibEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // libiio 0.x (Debian: libiio-dev to build, libiio0 to run), for Industrial I/O sensors, loaded when first used.
        .target(name: "CLibIIO"),
        // Clocks, the sampler, and every device behind `MotionSensor`: simulated, replayed, IIO, evdev.
        .target(
            name: "GestureSensors",
            dependencies: ["GestureCore", "GestureSimulation", "CLinux", "CLibEvdev", "CLibIIO"]),

        // Speech: prompts spoken by espeak-ng (a subprocess), printed, or written as WAV files.
        .target(
            name: "GestureSpeech",
            dependencies: [
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Recording: the session plan and protocol, the recorder.
        .target(
            name: "GestureRecording",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore", "GestureSensors", "GestureSpeech",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Analysis, which never records: loading, import, stats, cleaning, plots, balance, split.
        .target(
            name: "GestureAnalysis",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore", "GestureArchive",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),

        // Learning.
        // OpenBLAS's products (Debian: libopenblas0), loaded when first used.
        .target(name: "COpenBLAS", dependencies: ["CLearningKernels"]),
        // Hand-written matrix kernels (AVX-512 and AVX2; for one row also NEON and plain C), chosen at
        // run time, and the thread team training shares them with. Optimized in debug builds too:
        // unoptimized intrinsics made the tests' trainings many times slower than OpenBLAS.
        .target(name: "CLearningKernels", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        // Tensors, layers, training, evaluation and the model file.
        .target(
            name: "GestureLearning", dependencies: ["GestureCore", "GestureMotion", "COpenBLAS", "CLearningKernels"]),
        // Training: recordings as training and test sets, the one training pipeline (`gesture train`
        // and the benchmarks), leaving each person out in turn, the checks for leakage, and the reports.
        .target(
            name: "GestureTraining",
            dependencies: ["GestureCore", "GestureMotion", "GestureStore", "GestureAnalysis", "GestureLearning"]),

        // Live: prediction windows, streaming detection, the detection run that detect, play and the
        // studio share, event scoring and the game.
        .target(
            name: "GestureLive", dependencies: ["GestureCore", "GestureMotion", "GestureLearning"]),

        // Scenarios for the benchmarks, the tests and crossval: faulty recordings and how cleaning finds
        // them, labels aligned on simulated takes, detection scored on recorded sessions, leaving a
        // gesture and a person out.
        .target(
            name: "GestureScenarios",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore", "GestureSimulation", "GestureSensors",
                "GestureSpeech", "GestureRecording", "GestureAnalysis", "GestureLearning", "GestureTraining",
                "GestureLive",
            ]),

        // Interop: models to and from other formats (Core ML, ONNX) and out as a C library. The
        // protocol buffers' Swift is generated from Schemas/ by scripts/generate-protobuf, and committed.
        .target(
            name: "GestureInterop",
            dependencies: [
                "GestureCore", "GestureLearning", "GestureLive",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Schemas"]),
        // The C library built with real compilers for other CPUs and run there in QEMU (aarch64 Linux, a
        // Cortex-M4F on mps2-an386, whose start-up code and memory map are in mps2-an386/): sizes and
        // instructions counted, for the tests and the benchmark.
        .target(
            name: "GestureTargets", dependencies: ["GestureInterop"],
            resources: [.embedInCode("mps2-an386/mps2-an386.ld"), .embedInCode("mps2-an386/startup.c")]),

        // The studio: the local web server, with its access token, HTTPS on the LAN with a certificate it
        // makes, the phone as a sensor, and the browser views of the live devices, the sessions and their
        // labels (changed through the archive) and the detections. Its pages are plain files in Assets/,
        // compiled into the module.
        .target(
            name: "GestureStudio",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureStore", "GestureArchive", "GestureAnalysis",
                "GestureLearning", "GestureTraining", "GestureLive", "GestureSpeech", "GestureRecording",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [
                .embedInCode("Assets/phone.html"), .embedInCode("Assets/phone.js"), .embedInCode("Assets/studio.html"),
                .embedInCode("Assets/studio.js"),
            ]),

        // The executables: they parse arguments and call the modules.
        // Options, errors and terminal output both executables share; no Foundation, no catalog.
        .target(
            name: "GestureCommandLine",
            dependencies: [
                "GestureCore", "GestureSimulation", "GestureSensors", "GestureLearning", "GestureLive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "gesture",
            dependencies: [
                "GestureCore", "GestureStore", "GestureArchive", "GestureSimulation", "GestureSensors", "GestureSpeech",
                "GestureRecording", "GestureAnalysis", "GestureLearning", "GestureTraining", "GestureLive",
                "GestureScenarios", "GestureInterop", "GestureStudio", "GestureCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // `gesture detect` runs this lean executable: the live detector without SQLite, Foundation's
        // CoreFoundation and ICU, or the rest of `gesture`, linked with the Swift runtime inside it.
        .executableTarget(
            name: "gesture-detect",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureLive", "GestureCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Linker"],
            linkerSettings: [
                // Not position-independent and exporting no symbols, so that the loader applies none of
                // the 40,000 relocations the Swift runtime's metadata would need and reads no symbol
                // table; libstdc++ (its Linker/ holds the script that names its archive) and libgcc
                // inside as well, so that they are not loaded and relocated at each start either.
                .unsafeFlags(
                    ["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections"]
                        + ["-Xclang-linker", "-no-pie", "-Xlinker", "--no-export-dynamic"]
                        + [
                            "-Xclang-linker", "-static-libgcc",
                            "-L\(Context.packageDirectory)/Sources/gesture-detect/Linker",
                        ],
                    .when(configuration: .release))
            ]),
        // Benchmarks that print figures.
        .executableTarget(
            name: "gesture-bench",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore", "GestureArchive", "GestureSimulation", "GestureSensors",
                "GestureSpeech", "GestureRecording", "GestureAnalysis", "GestureLearning", "GestureTraining",
                "GestureScenarios", "GestureLive", "GestureInterop", "GestureTargets", "GestureCommandLine",
                "BrowserDriver",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The peers it measures GestureLab against, where they are installed (PyTorch).
            resources: [.copy("Peers")]),
        // Debian's headless Chromium driven over the DevTools protocol, for the studio's tests and benchmark.
        .target(
            name: "BrowserDriver",
            dependencies: [
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // A fake HID sensor hub through uhid, for the tests in the VM.
        .target(name: "CSensorHub"),
        // Kernel devices with chosen motion, for the tests in the VM.
        .executableTarget(
            name: "gesture-devicetest",
            dependencies: [
                "GestureCore", "GestureSensors", "CLibEvdev", "CSensorHub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        // Tests: one target per module, helpers they share, and the tests that run the built executables.
        .target(
            name: "GestureTestSupport",
            dependencies: [
                "GestureCore", "GestureStore", "GestureSimulation", "GestureSensors", "GestureSpeech",
                "GestureRecording", "GestureAnalysis",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/GestureTestSupport"),
        .testTarget(name: "GestureCoreTests", dependencies: ["GestureCore", "GestureTestSupport"]),
        .testTarget(name: "GestureMotionTests", dependencies: ["GestureCore", "GestureMotion", "GestureTestSupport"]),
        .testTarget(
            name: "GestureStoreTests",
            dependencies: [
                "GestureCore", "GestureStore", "GestureTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "GestureArchiveTests",
            dependencies: [
                "GestureCore", "GestureStore", "GestureArchive", "GestureTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "GestureSimulationTests",
            dependencies: ["GestureCore", "GestureMotion", "GestureSimulation", "GestureTestSupport"]),
        .testTarget(
            name: "GestureSensorsTests",
            dependencies: ["GestureCore", "GestureSimulation", "GestureSensors", "CLibIIO", "GestureTestSupport"]),
        .testTarget(
            name: "GestureRecordingTests",
            dependencies: [
                "GestureCore", "GestureStore", "GestureArchive", "GestureSimulation", "GestureSensors", "GestureSpeech",
                "GestureRecording", "GestureTestSupport",
            ]),
        .testTarget(
            name: "GestureAnalysisTests",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureStore", "GestureArchive", "GestureSimulation",
                "GestureAnalysis", "GestureTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "GestureLearningTests",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureLearning", "COpenBLAS", "GestureTargets", "GestureTestSupport",
            ]),
        .testTarget(
            name: "GestureTrainingTests",
            dependencies: [
                "GestureCore", "GestureAnalysis", "GestureLearning", "GestureTraining", "GestureTestSupport",
            ]),
        .testTarget(
            name: "GestureScenariosTests",
            dependencies: [
                "GestureCore", "GestureStore", "GestureArchive", "GestureSimulation", "GestureRecording",
                "GestureAnalysis", "GestureLearning", "GestureLive", "GestureScenarios", "GestureTestSupport",
            ]),
        .testTarget(
            name: "GestureLiveTests",
            dependencies: ["GestureCore", "GestureMotion", "GestureLearning", "GestureLive", "GestureTestSupport"]),
        .testTarget(
            name: "GestureInteropTests",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureLearning", "GestureLive", "GestureInterop", "GestureTargets",
                "GestureTestSupport",
            ],
            exclude: ["Python"]),
        .testTarget(
            name: "FuzzTests",
            dependencies: [
                "GestureCore", "GestureMotion", "GestureSensors", "GestureStore", "GestureArchive", "GestureAnalysis",
                "GestureLearning", "GestureInterop", "GestureStudio", "GestureCommandLine", "GestureTestSupport",
                "gesture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(
            name: "GestureStudioTests",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureStudio", "GestureStore", "GestureTestSupport", "BrowserDriver",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        .testTarget(name: "LayoutTests", dependencies: ["GestureTestSupport"]),
        .testTarget(
            name: "CommandLineTests",
            dependencies: [
                "GestureCore", "GestureStore", "GestureArchive", "GestureTestSupport",
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
    ]
)
