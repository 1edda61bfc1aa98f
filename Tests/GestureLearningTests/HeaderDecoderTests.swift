import Foundation
import Testing

@testable import GestureLearning

/// The model file's header reader gives what Foundation's `JSONDecoder` gives, and fails where it fails.
@Suite struct HeaderDecoderTests {
    private struct Part: Codable, Equatable {
        var count: Int
        var share: Float?
        var values: [Double]
        var name: String
    }

    private enum Kind: String, Codable {
        case lstm, dense
    }

    private struct Whole: Codable, Equatable {
        var part: Part
        var parts: [Part]
        var kind: Kind
        var takes: [String: Int]
        var flag: Bool
        var absent: Part?
        var floats: [Float]
        var nested: [[Int]]
        var byte: UInt8
        var rate: Double
    }

    private static let names = ["", "plain", "a/b\\c \"quoted\"", "tab\tnew\nline\u{1}\u{7f}", "é ü 中 😀", "../m.model"]
    private static let floats: [Float] = [
        0, -0, 0.2, 0.43507433, 1e-45, .leastNormalMagnitude, .greatestFiniteMagnitude, -3.4e38, 1 / 3, 25,
    ]
    private static let doubles: [Double] = [0, 0.01, 1 / 3, 1e-320, 1.7e308, -2.5e-7, 100_000]

    private static func whole(_ index: Int) -> Whole {
        let name = names[index % names.count]
        return Whole(
            part: Part(
                count: [0, -1, Int.max, Int.min][index % 4], share: index % 2 == 0 ? nil : floats[index % floats.count],
                values: doubles, name: name),
            parts: [Part(count: 7, share: 0.5, values: [], name: name)], kind: index % 2 == 0 ? .lstm : .dense,
            takes: [name: index, "chop": 3], flag: index % 2 == 0, absent: nil, floats: floats,
            nested: [[1, 2], [], [3]],
            byte: 255, rate: doubles[index % doubles.count])
    }

    private func decoded<Value: Decodable>(_ type: Value.Type, _ json: Data) throws -> Value {
        try json.withUnsafeBytes { try HeaderDecoder.decode(type, from: $0) }
    }

    @Test(arguments: 0..<12)
    func whatJSONEncoderWritesReadsBackAsJSONDecoderReadsIt(index: Int) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = index % 2 == 0 ? [.sortedKeys] : [.prettyPrinted]
        let json = try encoder.encode(Self.whole(index))
        let read = try decoded(Whole.self, json)
        #expect(read == Self.whole(index))
        #expect(read == (try JSONDecoder().decode(Whole.self, from: json)))
    }

    @Test func escapesSurrogatesExponentsAndWhiteSpaceReadAsJSONDecoderReadsThem() throws {
        let json = Data(
            #"""
             { "part" : {"count":5,"values":[1e2, -0.5E-3, 2E+1],"name":"\u00e9\ud83d\ude00\/\b\f\r"},
            "parts":[], "kind":"lstm", "takes":{}, "flag":true, "absent":null, "floats":[], "nested":[[]], "byte":0,
            "rate":-1.5e+2 }
            """#.utf8)
        let read = try decoded(Whole.self, json)
        #expect(read.part.name == "é😀/\u{8}\u{c}\r")
        #expect(read == (try JSONDecoder().decode(Whole.self, from: json)))
    }

    @Test(arguments: [
        "", "{", #"{"part" 1}"#, "[1,]", "01", "-", "1.", "1e", #""\x""#, #""\ud800""#, "\"a\u{1}\"", "nul", "{} x",
    ])
    func whatIsNotJSONIsAnError(json: String) {
        #expect(throws: DecodingError.self) { try decoded(Whole.self, Data(json.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Whole.self, from: Data(json.utf8)) }
    }

    /// JSON that is not the header's: a missing key, a value of another type, null, a number too
    /// large or not whole.
    @Test(arguments: [
        #"{"part":1}"#, #"{"part":null}"#, #"{"part":{"count":"1","values":[],"name":""}}"#,
        #"{"part":{"count":1.5,"values":[],"name":""}}"#, #"{"part":{"count":1,"values":{},"name":""}}"#,
        #"{"part":{"count":1,"values":[true],"name":""}}"#, #"{"part":{"count":1,"values":[1e999],"name":7}}"#,
        #"{"part":{"count":1,"values":[],"name":null}}"#,
    ])
    func whatIsNotAHeaderIsJSONDecodersError(json: String) throws {
        let mine = #expect(throws: DecodingError.self) { try decoded(Whole.self, Data(json.utf8)) }
        let theirs = #expect(throws: DecodingError.self) { try JSONDecoder().decode(Whole.self, from: Data(json.utf8)) }
        #expect(mine.map { "\($0)" } == theirs.map { "\($0)" })
    }
}
