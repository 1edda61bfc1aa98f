import Synchronization

/// A fixture made once, on first use, for every test that asks for it. If making it fails, each of
/// those tests fails with the error, and the rest of the run goes on.
public final class SharedFixture<Value: Sendable>: Sendable {
    private let make: @Sendable () throws -> Value
    private let made = Mutex<Result<Value, any Error>?>(nil)

    public init(_ make: @escaping @Sendable () throws -> Value) { self.make = make }

    public func value() throws -> Value {
        try made.withLock { made in
            let result = made ?? Result { try make() }
            made = result
            return try result.get()
        }
    }
}
