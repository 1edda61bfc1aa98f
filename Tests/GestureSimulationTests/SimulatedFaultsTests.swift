import GestureCore
import GestureSimulation
import Testing

@Suite struct SimulatedFaultsTests {
    @Test func specSelectsFaultsAndTakes() throws {
        let faults = try SimulatedFaults("wrong-gesture@2,upside-down,dropped@1,dropped@3")
        for take in 1...5 {
            #expect(faults.contains(.wrongGesture, take: take) == (take == 2), "take \(take)")
            #expect(faults.contains(.upsideDown, take: take), "take \(take)")
            #expect(faults.contains(.droppedSamples, take: take) == (take == 1 || take == 3), "take \(take)")
            #expect(!faults.contains(.deadAxis, take: take), "take \(take)")
        }
    }

    @Test func spacesAndEmptyItemsAreIgnored() throws {
        let faults = try SimulatedFaults(" dead-axis@4 , ,upside-down@1,")
        #expect(faults.contains(.deadAxis, take: 4))
        #expect(!faults.contains(.deadAxis, take: 1))
        #expect(faults.contains(.upsideDown, take: 1))
        #expect(!faults.contains(.upsideDown, take: 4))
    }

    @Test(arguments: ["dropped,dropped@2", "dropped@2,dropped"])
    func faultWithoutATakeAppliesToEveryTakeWhateverElseIsSaid(_ spec: String) throws {
        let faults = try SimulatedFaults(spec)
        #expect((1...4).allSatisfy { faults.contains(.droppedSamples, take: $0) })
    }

    @Test func noFaultsContainsNothing() throws {
        for faults in [SimulatedFaults.none, try SimulatedFaults(""), SimulatedFaults()] {
            for kind in SimulatedFaults.Kind.allCases {
                #expect(!faults.contains(kind, take: 1))
            }
        }
    }

    @Test func unknownFaultIsAnErrorListingTheKnownOnes() {
        let error = #expect(throws: SensorError.self) { try SimulatedFaults("upside-down,sideways@2") }
        let reason = error?.reason ?? ""
        #expect(reason.contains("'sideways'"))
        for known in ["wrong-gesture", "upside-down", "dead-axis", "dropped"] {
            #expect(reason.contains(known))
        }
    }

    @Test(arguments: ["dropped@x", "dropped@0", "dropped@-1", "dropped@1.5", "dropped@", "dropped@2@3"])
    func badTakeNumberIsAnError(_ spec: String) {
        let error = #expect(throws: SensorError.self) { try SimulatedFaults(spec) }
        #expect(error?.reason.contains("take") == true, "\(String(describing: error))")
    }
}
