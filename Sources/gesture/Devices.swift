import ArgumentParser
import Foundation
import GestureSensors

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the accelerometers and gyroscopes found.")

    @Flag(help: "JSON, for scripts.") var json = false

    func run() throws {
        let devices = DeviceDirectory().available()
        if json {
            let objects = devices.map { ["id": $0.id, "name": $0.name, "maximumRate": $0.maximumRate] as [String: Any] }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys])
            Terminal.say(String(decoding: data, as: UTF8.self))
        } else {
            Terminal.say(Summary.table(
                header: ["id", "name", "max rate Hz"],
                rows: devices.map { [$0.id, $0.name, String(format: "%g", $0.maximumRate)] }))
        }
    }
}
