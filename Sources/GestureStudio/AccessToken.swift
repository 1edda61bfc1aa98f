/// The secret every request to the studio must carry (`?token=`): 128 random bits, as hex. It is
/// in the URL the command prints, so whoever can read the terminal may use the studio, and nobody
/// else on the machine or the network can.
public struct AccessToken: Sendable, Equatable {
    public let value: String

    private init(value: String) { self.value = value }

    public static func random() -> AccessToken {
        var generator = SystemRandomNumberGenerator()
        let words = [generator.next(), generator.next()] as [UInt64]
        return AccessToken(
            value: words.map { word in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }.joined())
    }

    /// Whether `candidate` is the token, compared in time that does not depend on where they differ.
    public func admits(_ candidate: Substring?) -> Bool {
        guard let candidate, candidate.utf8.count == value.utf8.count else { return false }
        return zip(candidate.utf8, value.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
