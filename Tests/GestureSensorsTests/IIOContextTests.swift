import CLibIIO
import Foundation
import Testing

@testable import GestureSensors

/// The IIO paths the VM does not reach, on libiio's XML context: which devices make a sensor, and
/// how scan elements of several formats decode.
@Suite struct IIOContextTests {
    private static func channel(_ id: String, index: Int, format: String) -> String {
        """
        <channel id="\(id)" type="input"><scan-element index="\(index)" format="\(format)" scale="1.0" />\
        <attribute name="raw" filename="in_\(id)_raw" /></channel>
        """
    }

    private static func device(
        _ id: String, _ name: String, axes: [String], format: String = "le:s16/16&gt;&gt;0"
    ) -> String {
        let channels = axes.enumerated().map { channel($1, index: $0, format: format) }.joined()
        return "<device id=\"\(id)\" name=\"\(name)\">\(channels)</device>"
    }

    private func withContext<T>(_ devices: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        let xml = "<?xml version=\"1.0\" encoding=\"utf-8\"?><context name=\"xml\">\(devices)</context>"
        let context = try #require(xml.withCString { iio_create_xml_context_mem($0, strlen($0)) })
        defer { iio_context_destroy(context) }
        return try body(context)
    }

    private let imuAxes = ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp"]

    @Test func anIMUWithBothTriplesIsOneSensor() throws {
        let ids = try withContext(Self.device("iio:device0", "mpu6050", axes: imuAxes)) { context in
            IIOMotionDevices(context: context).pairs.map(\.id)
        }
        #expect(ids == ["iio:mpu6050"])
    }

    @Test func separateAccelerometerAndGyroscopeArePaired() throws {
        let devices =
            Self.device("iio:device0", "accel_3d", axes: ["accel_x", "accel_y", "accel_z", "timestamp"])
            + Self.device("iio:device1", "gyro_3d", axes: ["anglvel_x", "anglvel_y", "anglvel_z", "timestamp"])
            + "<device id=\"trigger0\" name=\"accel_3d-dev0\"></device>"
        let pairs = try withContext(devices) {
            IIOMotionDevices(context: $0).pairs.map { ($0.id, $0.rotationRate != nil) }
        }
        #expect(pairs.map(\.0) == ["iio:accel_3d+gyro_3d"])
        #expect(pairs.map(\.1) == [true])
    }

    @Test func anAccelerometerAloneHasNoGyroscopeAndIncompleteTriplesAreIgnored() throws {
        let devices =
            Self.device("iio:device0", "lis3dh", axes: ["accel_x", "accel_y", "accel_z"])
            + Self.device("iio:device1", "halfgyro", axes: ["anglvel_x", "anglvel_y"])
            + Self.device("iio:device2", "light", axes: ["illuminance"])
        let pairs = try withContext(devices) {
            IIOMotionDevices(context: $0).pairs.map { ($0.id, $0.rotationRate == nil) }
        }
        #expect(pairs.map(\.0) == ["iio:lis3dh"])
        #expect(pairs.map(\.1) == [true])
    }

    @Test(arguments: [
        ("le:s16/16&gt;&gt;0", [0xFE, 0xFF] as [UInt8], -2 as Int64),
        ("le:u16/16&gt;&gt;0", [0xFE, 0xFF], 65534),
        ("be:s16/16&gt;&gt;0", [0xFF, 0xFE], -2),
        ("be:s12/16&gt;&gt;4", [0xFF, 0xF0], -1),
        ("le:s12/16&gt;&gt;4", [0x10, 0x80], -2047),
        ("le:s32/32&gt;&gt;0", [0x2B, 0xFB, 0xFF, 0xFF], -1237),
        ("le:s64/64&gt;&gt;0", [0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00], 1_000_000_000),
    ])
    func scanElementsDecodeToTheirValue(format: String, bytes: [UInt8], expected: Int64) throws {
        let value = try withContext(Self.device("iio:device0", "imu", axes: ["accel_x"], format: format)) { context in
            let device = try #require(iio_context_get_device(context, 0))
            let channel = try #require(iio_device_find_channel(device, "accel_x", false))
            return bytes.withUnsafeBytes { IIOStream.decode(channel, at: $0.baseAddress!) }
        }
        #expect(value == expected)
    }

    @Test func theKernelsMountMatrixIsReadRowsFirst() {
        #expect(IIOTriple.parseMountMatrix("0, 1, 0; -1, 0, 0; 0, 0, 1") == [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
        #expect(IIOTriple.parseMountMatrix("1, 0, 0; 0, 1, 0; 0, 0, 1") == nil)
        #expect(IIOTriple.parseMountMatrix("1, 0; 0, 1") == nil)
    }
}
