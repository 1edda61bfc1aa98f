import ArgumentParser
import GestureCore
import GestureRecording
import GestureSensors
import struct SystemPackage.FilePath

struct FolderOptions: ParsableArguments {
    @Option(name: .customLong("recordings"), help: "The recordings folder.")
    var path = "recordings"

    var folder: RecordingsFolder { RecordingsFolder(FilePath(path)) }

    func archive() throws -> Archive {
        do {
            return try Archive(folder: folder)
        } catch {
            throw Failure.usage("\(error)")
        }
    }
}

struct SensorOptions: ParsableArguments {
    @Option(help: "The sensor to read, as `gesture devices` lists it, or replay:FILE.csv to play a recording back.")
    var device = SimulatedSensor.id

    @Option(help: "Sampling rate in Hz.")
    var rate = 100.0

    @Option(help: "Seed of the simulated sensor: the same seed gives the same motion.")
    var seed: UInt64 = 1

    @Option(name: .customLong("sim-faults"),
            help: "Mistakes for the simulated sensor to make, e.g. wrong-gesture@2,upside-down,dead-axis@1,dropped.")
    var simFaults = ""

    func open(holder: UserID, clock: any SamplingClock) throws -> any MotionSensor {
        do {
            return try DeviceDirectory(seed: seed, faults: SimulatedFaults(simFaults)).open(device, holder: holder, clock: clock)
        } catch {
            throw Failure.usage("\(error)")
        }
    }
}

func userID(_ text: String) throws -> UserID {
    do { return try UserID(text) } catch { throw Failure.usage("\(error)") }
}

func activityLabel(_ text: String) throws -> ActivityLabel {
    do { return try ActivityLabel(text) } catch { throw Failure.usage("\(error)") }
}
