/// The model file's JSON header decoded without Foundation's `JSONDecoder`, whose code (a few
/// hundred kilobytes of it, touched once) was a good part of the detector's start and memory.
/// It reads any JSON `JSONEncoder` writes, into the header's own `Decodable` types.
struct HeaderDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The value the UTF-8 JSON `bytes` hold, decoded as `type`.
    static func decode<Header: Decodable>(_ type: Header.Type, from bytes: UnsafeRawBufferPointer) throws -> Header {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.document()
        return try Header(from: HeaderDecoder(value: value, codingPath: []))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: Any].self, gettingA: "keyed decoding container")
        }
        return KeyedDecodingContainer(Members(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([Any].self, gettingA: "unkeyed decoding container")
        }
        return Elements(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `JSONDecoder`'s error for a value that is not a `type`: null is a missing value (but where
    /// a Bool is expected), anything else a mismatch.
    fileprivate func mismatch(_ type: Any.Type, gettingA what: String? = nil) -> DecodingError {
        if case .null = value, type != Bool.self {
            let getting = what ?? "value of type \(type)"
            return .valueNotFound(
                type,
                .init(codingPath: codingPath, debugDescription: "Cannot get \(getting) -- found null value instead"))
        }
        return .typeMismatch(
            type,
            .init(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }

    /// What was found, in `JSONDecoder`'s words.
    private var found: String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}

extension HeaderDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let bool) = value else { throw mismatch(type) }
        return bool
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let string) = value else { throw mismatch(type) }
        return string
    }

    func decode(_ type: Double.Type) throws -> Double { try float() }
    func decode(_ type: Float.Type) throws -> Float { try float() }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    private func integer<Integer: FixedWidthInteger>() throws -> Integer {
        let text = try numberText(Integer.self)
        // As JSONDecoder: 1e2 and 1.0 are integers too.
        guard let integer = Integer(text) ?? Double(text).flatMap({ Integer(exactly: $0) }) else { throw invalidJSON }
        return integer
    }

    /// The number nearest the text; one too large for `Float` does not fit.
    private func float<Float: BinaryFloatingPoint & LosslessStringConvertible>() throws -> Float {
        guard let float = Float(try numberText(Float.self)), float.isFinite else { throw invalidJSON }
        return float
    }

    private func numberText(_ type: Any.Type) throws -> String {
        guard case .number(let text) = value else { throw mismatch(type) }
        return text
    }

}

/// What `JSONDecoder` throws for text that is not JSON, or a number that does not fit its type.
private let invalidJSON = DecodingError.dataCorrupted(
    .init(codingPath: [], debugDescription: "The given data was not valid JSON."))

/// A JSON value, numbers kept as written until their type is known.
enum JSONValue {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

private struct Members<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func decoder(_ key: any CodingKey) throws -> HeaderDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return HeaderDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    { try decoder(key).container(keyedBy: type) }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try decoder(SuperKey()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(key) }
}

/// The key `superDecoder()` reads, as in Foundation's decoders.
private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue!)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct Elements: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex == elements.count }

    /// The next element's decoder; the index moves on only once it is decoded.
    private func decoder(_ type: Any.Type) throws -> HeaderDecoder {
        let path = codingPath + [IndexKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return HeaderDecoder(value: elements[currentIndex], codingPath: path)
    }

    private mutating func next<T>(_ decode: (HeaderDecoder) throws -> T) throws -> T {
        let value = try decode(try decoder(T.self))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try decoder(Never.self).decodeNil() else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decode(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    { try next { try $0.container(keyedBy: type) } }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder { try next { $0 } }
}

/// Reads one JSON value (RFC 8259) from UTF-8 bytes.
private struct JSONParser {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The value the bytes hold, with nothing but white space after it.
    mutating func document() throws -> JSONValue {
        let document = try value()
        skipSpace()
        guard offset == bytes.count else { throw invalidJSON }
        return document
    }

    private mutating func value() throws -> JSONValue {
        skipSpace()
        guard let byte = peek() else { throw invalidJSON }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object())
        case UInt8(ascii: "["): return .array(try array())
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    private mutating func object() throws -> [String: JSONValue] {
        offset += 1
        var members: [String: JSONValue] = [:]
        if passes(UInt8(ascii: "}")) { return members }
        repeat {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw invalidJSON }
            let key = try string()
            guard passes(UInt8(ascii: ":")) else { throw invalidJSON }
            members[key] = try value()
        } while try !closes(UInt8(ascii: "}"))
        return members
    }

    private mutating func array() throws -> [JSONValue] {
        offset += 1
        var elements: [JSONValue] = []
        if passes(UInt8(ascii: "]")) { return elements }
        repeat { elements.append(try value()) } while try !closes(UInt8(ascii: "]"))
        return elements
    }

    /// True at `end`, false at the comma between two elements; either is passed.
    private mutating func closes(_ end: UInt8) throws -> Bool {
        if passes(end) { return true }
        guard passes(UInt8(ascii: ",")) else { throw invalidJSON }
        return false
    }

    /// Passes `byte` if it comes next, after white space.
    private mutating func passes(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    private mutating func string() throws -> String {
        offset += 1
        var utf8: [UInt8] = []
        while let byte = peek() {
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: utf8, as: UTF8.self) else { throw invalidJSON }
                return string
            case UInt8(ascii: "\\"): try escape(into: &utf8)
            case ..<0x20: throw invalidJSON
            default: utf8.append(byte)
            }
        }
        throw invalidJSON
    }

    private mutating func escape(into utf8: inout [UInt8]) throws {
        guard let byte = peek() else { throw invalidJSON }
        offset += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5c, UInt8(ascii: "/"): 0x2f, UInt8(ascii: "b"): 0x08,
            UInt8(ascii: "f"): 0x0c, UInt8(ascii: "n"): 0x0a, UInt8(ascii: "r"): 0x0d, UInt8(ascii: "t"): 0x09,
        ]
        if let escaped = simple[byte] {
            utf8.append(escaped)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw invalidJSON }
        var scalar = try hexQuad()
        if (0xd800..<0xdc00).contains(scalar) {
            guard bytes[offset...].starts(with: "\\u".utf8) else { throw invalidJSON }
            offset += 2
            let low = try hexQuad()
            guard (0xdc00..<0xe000).contains(low) else { throw invalidJSON }
            scalar = 0x10000 + (scalar - 0xd800) << 10 + (low - 0xdc00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw invalidJSON }
        utf8.append(contentsOf: unicode.utf8)
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard offset + 4 <= bytes.count,
            let quad = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
        else { throw invalidJSON }
        offset += 4
        return quad
    }

    /// A number's text, checked against JSON's grammar.
    private mutating func number() throws -> String {
        let start = offset
        func digits() -> Int {
            let first = offset
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
            return offset - first
        }
        if peek() == UInt8(ascii: "-") { offset += 1 }
        let whole = offset
        guard digits() > 0, bytes[whole] != UInt8(ascii: "0") || offset - whole == 1 else {
            throw invalidJSON
        }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            guard digits() > 0 else { throw invalidJSON }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            guard digits() > 0 else { throw invalidJSON }
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func literal(_ text: String, _ value: JSONValue) throws -> JSONValue {
        guard bytes[offset...].starts(with: text.utf8) else { throw invalidJSON }
        offset += text.utf8.count
        return value
    }

    private mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 { offset += 1 }
    }

    private func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

}
