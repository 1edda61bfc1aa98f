import Foundation
import GestureStudio
import GestureTestSupport
import Testing

/// QR codes that zbarimg (Debian's zbar-tools) reads back, at every version the encoder makes.
@Suite struct QRCodeTests {
    /// The code as a PBM image, four pixels a module, in a quiet zone of four modules.
    static func image(_ code: QRCode) -> String {
        let scale = 4
        let side = (code.size + 8) * scale
        let rows = (0..<side).map { y in
            (0..<side).map { x in
                let (row, column) = (y / scale - 4, x / scale - 4)
                let dark =
                    (0..<code.size).contains(row) && (0..<code.size).contains(column) && code.modules[row][column]
                return dark ? "1" : "0"
            }.joined(separator: " ")
        }
        return "P1\n\(side) \(side)\n" + rows.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [5, 30, 60, 78, 100, 130, 150, 190, 230, 271])
    func zbarReadsItBack(length: Int) throws {
        let address = "https://192.168.1.20:8080/phone?token=" + String(repeating: "0123456789abcdef", count: 20)
        let text = String(address.prefix(length))
        let code = try QRCode(text)
        #expect(code.size == 17 + 4 * Self.expectedVersion(length))
        let folder = try TemporaryFolder()
        let file = folder.path.appending("code.pbm").string
        try Self.image(code).write(toFile: file, atomically: true, encoding: .utf8)
        let result = try runGesture(["--raw", "-q", file], in: folder.path, executable: "/usr/bin/zbarimg")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == text + "\n")
    }

    @Test func tooLongIsAnError() {
        #expect(throws: StudioError.self) { try QRCode(String(repeating: "x", count: 272)) }
    }

    @Test func theTerminalGetsTwoRowsALine() throws {
        let code = try QRCode("http://127.0.0.1:8080/phone?token=00000000000000000000000000000000")
        let lines = code.terminalLines()
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.hasPrefix("\u{1B}[30;107m") && $0.hasSuffix("\u{1B}[0m") })
    }

    /// The smallest version at level L whose byte capacity holds `length` bytes.
    static func expectedVersion(_ length: Int) -> Int {
        [17, 32, 53, 78, 106, 134, 154, 192, 230, 271].firstIndex { length <= $0 }! + 1
    }
}
