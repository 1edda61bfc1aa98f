import Foundation
import GestureCore
import GestureSensors
import Testing

@Suite struct DeviceProfileTests {
    private let full = """
        # a comment line
        name = Test IMU   # trailing comment
        match = iio:test* evdev:*IMU*
        axes = y -x z
        mount-matrix = 0 1 0; 1 0 0; 0 0 -1
        acceleration-scale = 2
        rotation-scale = 0.5
        rate = 200
        """

    @Test func everyFieldIsRead() throws {
        let profile = try DeviceProfile(text: full, file: "test.profile")
        #expect(profile.name == "Test IMU")
        #expect(profile.patterns == ["iio:test*", "evdev:*IMU*"])
        #expect(profile.axes.map(\.axis) == [1, 0, 2])
        #expect(profile.axes.map(\.sign) == [1, -1, 1])
        #expect(profile.mountMatrix == [[0, 1, 0], [1, 0, 0], [0, 0, -1]])
        #expect(profile.accelerationScale == 2)
        #expect(profile.rotationScale == 0.5)
        #expect(profile.rate == 200)
    }

    @Test func devicesAreMatchedByIDOrName() throws {
        let profile = try DeviceProfile(text: full, file: "test.profile")
        #expect(profile.matches(SensorInfo(id: "iio:test_imu", name: "x", maximumRate: 1)))
        #expect(profile.matches(SensorInfo(id: "evdev:pad", name: "evdev:Pro IMU", maximumRate: 1)))
        #expect(!profile.matches(SensorInfo(id: "iio:mpu6050", name: "mpu6050", maximumRate: 1)))
    }

    @Test func readingsAreMountedThenRemappedThenScaled() throws {
        let profile = try DeviceProfile(text: full, file: "test.profile")
        let sample = RawSample(time: 3, acceleration: [1, 2, 3], rotationRate: [4, 5, 6])
        // Mounted: (2, 1, −3); then axes y −x z: (1, −2, −3); then × 2.
        #expect(profile.apply(sample, mounting: true).acceleration == [2, -4, -6])
        // Mounted: (5, 4, −6); axes: (4, −5, −6); × 0.5.
        #expect(profile.apply(sample, mounting: true).rotationRate == [2, -2.5, -3])
        // Without the mount matrix (the IIO sensor applied it): axes (2, −1, 3) × 2.
        #expect(profile.apply(sample, mounting: false).acceleration == [4, -2, 6])
        #expect(profile.apply(sample, mounting: true).time == 3)
    }

    @Test(arguments: [
        ("match = x\naxes = x x z", 2, "axes"),
        ("match = x\naxes = x y", 2, "axes"),
        ("match = x\n\nmount-matrix = 1 0 0; 0 1 0", 3, "mount-matrix"),
        ("match = x\nrate = -5", 2, "rate"),
        ("match = x\nacceleration-scale = fast", 2, "acceleration-scale"),
        ("match = x\ncolour = red", 2, "colour"),
        ("match = x\nrate", 2, "rate"),
        ("name = no match", 1, "match"),
        ("match = x\n=", 2, ""),
        ("match = x\n = 5", 2, ""),
    ])
    func aMalformedProfileNamesFileLineAndField(text: String, line: Int, field: String) {
        let error = #expect(throws: ProfileError.self) { try DeviceProfile(text: text, file: "bad.profile") }
        #expect(error?.file == "bad.profile")
        #expect(error?.line == line)
        #expect(error?.field == field)
        #expect(error?.description.hasPrefix("bad.profile:\(line): \(field.isEmpty ? "" : "\(field): ")") == true)
    }

    @Test func theShippedProfilesAllParseAndTheFirstMatchWins() throws {
        let devices = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../devices").standardized.path
        let profiles = try DeviceProfile.load(from: devices)
        #expect(profiles.count == 6)
        let directory = DeviceDirectory(profiles: profiles)
        func profileName(_ id: String) -> String? {
            directory.profile(for: SensorInfo(id: id, name: id, maximumRate: 1))?.name
        }
        #expect(profileName("iio:mpu6050")?.hasPrefix("MPU-6050") == true)
        #expect(profileName("iio:bmi160")?.hasPrefix("BMI160") == true)
        #expect(profileName("iio:accel_3d+gyro_3d")?.hasPrefix("HID sensor hub") == true)
        #expect(profileName("iio:accel_3d")?.hasPrefix("Laptop") == true)
        #expect(
            profileName("evdev:Sony_Interactive_Entertainment_Wireless_Controller_Motion_Sensors")?.hasPrefix(
                "Game controller") == true)
        #expect(profileName("iio:lsm6dsm") == "Generic IIO IMU")
        #expect(profileName("phone") == "A phone's page (built in)")
        #expect(profileName("sim") == nil)
    }

    /// Outside a checkout, with no profiles found, the phone is still read at its browsers' 60 Hz;
    /// a profile of the user's matching it comes first.
    @Test func thePhonesProfileIsBuiltIn() throws {
        let phone = DeviceDirectory.phone
        #expect(DeviceDirectory(profiles: []).profile(for: phone)?.rate == 60)
        let own = try DeviceProfile(text: "match = phone\nrate = 50", file: "mine.profile")
        #expect(DeviceDirectory(profiles: [own]).profile(for: phone)?.rate == 50)
    }
}
