import GestureCore
import GestureSensors
import Testing

@testable import GestureStudio

/// The phone's numbers in the recorder's units and frame, its clock on the host's, its messages checked.
@Suite struct PhoneProfileTests {
    /// Lying still face up, turning about z at 90 °/s (π/2 rad/s), as each API reports it.
    @Test(arguments: [
        (PhoneSource.genericSensor, [0, 0, 9.80665, 0, 0, Double.pi / 2]),
        (.deviceMotion, [0, 0, 9.80665, 90, 0, 0]),
        (.deviceMotionIOS, [0, 0, -9.80665, 90, 0, 0]),
    ])
    func faceUpTurningAboutZ(source: PhoneSource, values: [Double]) {
        let sample = source.sample(values[...], at: 7)
        #expect(sample.time == 7)
        #expect(sample.acceleration == Vector3(0, 0, 1))
        #expect(abs(sample.rotationRate.z - Double.pi / 2) < 1e-15)
        #expect(sample.rotationRate.x == 0 && sample.rotationRate.y == 0)
    }

    /// DeviceMotionEvent's beta turns about x and gamma about y; iOS flips acceleration, not rotation.
    @Test func deviceMotionAxes() {
        let values: [Double] = [1, 2, 3, 30, 10, 20]
        let android = PhoneSource.deviceMotion.sample(values[...], at: 0)
        let iOS = PhoneSource.deviceMotionIOS.sample(values[...], at: 0)
        #expect(android.acceleration == Vector3(1, 2, 3) / 9.80665)
        #expect(iOS.acceleration == -android.acceleration)
        #expect(android.rotationRate == Vector3(10, 20, 30) * (Double.pi / 180))
        #expect(iOS.rotationRate == android.rotationRate)
    }

    /// The first batch anchors the phone's clock; later ones keep the phone's intervals whatever
    /// their delay, but for one that came sooner than the offset allows, which moves it down by at
    /// most a tenth of the time its readings span, until the clocks disagree by more than a second.
    @Test func thePhonesClockOnTheHosts() {
        var clock = PhoneClock()
        func expect(_ times: [Double], _ expected: [Double]) {
            #expect(
                times.count == expected.count && zip(times, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "\(times)")
        }
        expect(clock.times(of: [1000, 1010, 1020], arrivedAt: 50), [49.98, 49.99, 50])
        expect(clock.times(of: [1030], arrivedAt: 50.2), [50.01])
        // Its last reading arrived 15 ms sooner than the offset allows: 1 ms of it over its 10 ms.
        expect(clock.times(of: [1040], arrivedAt: 50.005), [50.019])
        // Then what is left, over the readings of a batch that spans 200 ms, in order.
        expect(clock.times(of: [1140, 1240], arrivedAt: 50.205), [50.112, 50.205])
        expect(clock.times(of: [1250], arrivedAt: 50.4), [50.215])
        expect(clock.times(of: [9000], arrivedAt: 51.5), [51.5])
        expect(clock.times(of: [], arrivedAt: 60), [])
    }

    @Test func messagesAreChecked() throws {
        #expect(try PhoneMessage(parsing: #"{"source":"generic-sensor"}"#).source == .genericSensor)
        let batch = try PhoneMessage(parsing: #"{"readings":[[1,0,0,9.8,0,0,0],[1,0,0,9.8,0,0,1e-3]]}"#)
        #expect(batch.readings?.count == 2)
        let refused = [
            ("[]", "not a message of the phone's page"),
            (#"{"readings":[[1,0,0,9.8,0,0]]}"#, "reading 1 is not seven finite numbers"),
            (#"{"readings":[[1,0,0,9.8,0,0,"x"]]}"#, "not a message of the phone's page (readings.0.6: "),
            (#"{"readings":[[2,0,0,9.8,0,0,0],[1,0,0,9.8,0,0,0]]}"#, "reading 2 is older than the one before it"),
            (#"{"source":"generic-sensor","readings":[]}"#, #"expected either "source" or "readings""#),
        ]
        for (text, reason) in refused {
            #expect(throws: PhoneMessageError.self) { try PhoneMessage(parsing: text) }
            do {
                _ = try PhoneMessage(parsing: text)
            } catch {
                #expect(error.description.hasPrefix(reason), "\(text): \(error)")
            }
        }
        let many =
            "["
            + Array(repeating: "[1,0,0,9.8,0,0,0]", count: PhoneMessage.largestBatch + 1).joined(
                separator: ",") + "]"
        #expect(throws: PhoneMessageError.self) { try PhoneMessage(parsing: #"{"readings":\#(many)}"#) }
    }

    @Test func theTokenAdmitsItselfOnly() {
        let token = AccessToken.random()
        #expect(token.value.count == 32 && token.value.allSatisfy(\.isHexDigit))
        #expect(token != AccessToken.random())
        #expect(token.admits(Substring(token.value)))
        #expect(!token.admits(nil))
        #expect(!token.admits(""))
        #expect(!token.admits(Substring(token.value.dropLast())))
        #expect(!token.admits(Substring(token.value + "0")))
        #expect(
            !token.admits(Substring(String(token.value.reversed()))) || token.value == String(token.value.reversed()))
    }
}
