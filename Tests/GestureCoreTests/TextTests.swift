import Testing

@testable import GestureCore

@Suite struct TextTests {
    @Test func trimmedDropsWhitespaceAtBothEnds() {
        #expect(" \t x = 1 \n".trimmed == "x = 1")
        #expect("   ".trimmed == "")
        #expect("plain".trimmed == "plain")
    }

    @Test func shortTextHasSixSignificantDigitsAsPercentG() {
        #expect(100.0.shortText == "100")
        #expect(100.00000000000213.shortText == "100")
        #expect(30.000000300000035.shortText == "30")
        #expect((100.0 / 3).shortText == "33.3333")
        #expect(0.5.shortText == "0.5")
        #expect((-12.5).shortText == "-12.5")
        #expect(0.0.shortText == "0")
    }

    @Test func fixedRoundsToTheDigitsAskedFor() {
        #expect(1.23456.fixed(2) == "1.23")
        #expect(0.9996.fixed(3) == "1.000")
        #expect(0.05.fixed(3) == "0.050")
        #expect((-2.5).fixed(0) == "-3")
        #expect((-0.0001).fixed(2) == "0.00")
        #expect(12.0.fixed(1) == "12.0")
    }

    @Test func readFileReadsAllAndSaysWhyNot() throws {
        let bytes = try readFile("/proc/self/stat")
        #expect(!bytes.isEmpty, "a file whose size stat does not know is read to its end")
        #expect(throws: FileReadError(path: "/nonexistent/x", reason: "No such file or directory")) {
            try readFile("/nonexistent/x")
        }
    }
}

@Suite struct CountingTests {
    @Test func oneIsSingularAndEveryOtherCountPlural() {
        #expect(1.counting("take") == "1 take")
        #expect(0.counting("take") == "0 takes")
        #expect(2.counting("false detection") == "2 false detections")
        #expect(1.counting("person", plural: "people") == "1 person")
        #expect(3.counting("person", plural: "people") == "3 people")
    }
}
