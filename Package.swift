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
    ],
    targets: [
        // Plain value types: samples, labels, sessions, the CSV format.
        .target(name: "GestureCore"),
        // The few Linux calls Swift cannot make directly.
        .target(name: "CLinux"),
        // libevdev (Debian: libevdev-dev), for input-device sensors.
        .systemLibrary(name: "CLibEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        // libiio 0.x (Debian: libiio-dev to build, libiio0 to run), for Industrial I/O sensors, loaded when first used.
        .target(name: "CLibIIO"),
        // Motion sources behind one protocol, rate control and sensor fusion.
        .target(name: "GestureSensors", dependencies: ["GestureCore", "CLinux", "CLibEvdev", "CLibIIO"]),
        // The session protocol, speech, the CSV writer and the catalog.
        .target(
            name: "GestureRecording",
            dependencies: [
                "GestureCore", "GestureSensors",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // Loading, inspecting, cleaning, plotting, balancing and splitting recordings.
        .target(name: "GestureAnalysis", dependencies: ["GestureCore", "GestureSensors", "GestureRecording"]),
        // OpenBLAS's products (Debian: libopenblas0), loaded when first used.
        .target(name: "COpenBLAS", dependencies: ["CLearningKernels"]),
        // Hand-written AVX-512 matrix kernels, chosen at run time.
        .target(name: "CLearningKernels"),
        // Tensors, layers, training, evaluation and the model file.
        .target(
            name: "GestureLearning",
            dependencies: ["GestureCore", "COpenBLAS", "CLearningKernels"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]),
        // Recordings as training and test sets, and the reports of an experiment.
        .target(name: "GestureExperiments", dependencies: ["GestureCore", "GestureRecording", "GestureAnalysis", "GestureLearning"]),
        // Prediction windows, streaming detection and the game.
        .target(name: "GestureLive", dependencies: ["GestureCore", "GestureSensors", "GestureLearning"]),
        // Options, errors and terminal output both executables share; no Foundation, no catalog.
        .target(
            name: "GestureCommandLine",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureLearning", "GestureLive",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "gesture",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureRecording", "GestureAnalysis", "GestureLearning",
                "GestureExperiments", "GestureLive", "GestureCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // `gesture detect` runs this lean executable: the live detector without SQLite, Foundation's
        // CoreFoundation and ICU, or the rest of `gesture`, linked with the Swift runtime inside it.
        .executableTarget(
            name: "gesture-detect",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureLearning", "GestureLive", "GestureCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections"], .when(configuration: .release))]),
        .executableTarget(
            name: "gesture-bench",
            dependencies: [
                "GestureCore", "GestureSensors", "GestureRecording", "GestureAnalysis", "GestureLearning",
                "GestureExperiments", "GestureLive", "GestureCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .testTarget(name: "GestureCoreTests", dependencies: ["GestureCore"]),
        .testTarget(name: "GestureSensorsTests", dependencies: ["GestureCore", "GestureSensors"]),
        .testTarget(
            name: "GestureRecordingTests",
            dependencies: ["GestureCore", "GestureSensors", "GestureRecording"]),
        .testTarget(
            name: "GestureAnalysisTests",
            dependencies: ["GestureCore", "GestureSensors", "GestureRecording", "GestureAnalysis"]),
        .testTarget(name: "GestureLearningTests", dependencies: ["GestureCore", "GestureLearning"]),
        .testTarget(name: "GestureLiveTests", dependencies: ["GestureCore", "GestureSensors", "GestureLearning", "GestureLive"]),
    ]
)
