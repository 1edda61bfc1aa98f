/// Why a model cannot be written in another format, or read from one.
public struct InteropError: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
