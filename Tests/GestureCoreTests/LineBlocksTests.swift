import Foundation
import GestureCore
import GestureTestSupport
import Testing

/// Reading a file a block of whole lines at a time.
@Suite struct LineBlocksTests {
    private enum Piece: Equatable {
        case lines(String)
        case overlong(Int)
    }

    private func blocks(of text: String, blockSize: Int, longestLine: Int) throws -> [Piece] {
        let folder = try TemporaryFolder()
        let path = folder.path.appending("f.txt").string
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var blocks = try LineBlocks(path: path, blockSize: blockSize, longestLine: longestLine)
        var pieces: [Piece] = []
        while let block = try blocks.next() {
            switch block {
            case .lines(let bytes): pieces.append(.lines(String(decoding: bytes, as: UTF8.self)))
            case .overlong(let length): pieces.append(.overlong(length))
            }
        }
        return pieces
    }

    /// Block sizes of 1 and 2 hold no line whole: the buffer grows for them.
    @Test(arguments: [1, 2, 8, 13, 64, 1000])
    func blocksAreWholeLinesThatTogetherAreTheFile(blockSize: Int) throws {
        var random = SystemRandomNumberGenerator()
        let lines = (0..<200).map { _ in String(repeating: "x", count: Int.random(in: 0...6, using: &random)) }
        for text in [lines.joined(separator: "\n") + "\n", lines.joined(separator: "\n")] {
            let pieces = try blocks(of: text, blockSize: blockSize, longestLine: 7)
            let texts = pieces.compactMap { if case .lines(let text) = $0 { text } else { nil } }
            #expect(texts.count == pieces.count)
            #expect(texts.joined() == text)
            #expect(texts.dropLast().allSatisfy { $0.hasSuffix("\n") })
        }
    }

    @Test(arguments: [11, 20, 50])
    func aLineLongerThanTheLongestIsSkippedAndHandedOverAsItsLength(blockSize: Int) throws {
        let long = String(repeating: "a", count: 95)
        let pieces = try blocks(of: "one\n\(long)\ntwo\nthree\n", blockSize: blockSize, longestLine: 10)
        let lines = pieces.compactMap { if case .lines(let text) = $0 { text } else { nil } }
        #expect(pieces.filter { if case .overlong = $0 { true } else { false } } == [.overlong(95)])
        #expect(lines.joined() == "one\ntwo\nthree\n")
        let atTheEnd = try blocks(of: "one\n" + long, blockSize: blockSize, longestLine: 10)
        #expect(atTheEnd.last == .overlong(95))
        #expect(try blocks(of: long, blockSize: blockSize, longestLine: 10) == [.overlong(95)])
    }

    @Test func anEmptyFileHasNoBlocks() throws {
        #expect(try blocks(of: "", blockSize: 16, longestLine: 8).isEmpty)
    }

    @Test func aMissingFileIsAnErrorNamingIt() throws {
        let error = try #require(throws: FileReadError.self) { _ = try LineBlocks(path: "/nonexistent/f.txt") }
        #expect(error.description == "cannot read /nonexistent/f.txt: No such file or directory")
    }
}
