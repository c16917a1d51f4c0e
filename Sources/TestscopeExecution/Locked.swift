import Foundation

/// A value behind an `NSLock`, for state shared between threads (`Mutex` needs macOS 15).
// @unchecked: `value` is only reached through `withLock`, under `lock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}
