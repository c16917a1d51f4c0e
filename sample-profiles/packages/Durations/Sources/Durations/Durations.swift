import Foundation

/// Blocks the calling thread for `seconds` (the CPU-bound kind of test: it holds a thread of the pool).
public func blockFor(_ seconds: Double) {
    Thread.sleep(forTimeInterval: seconds)
}

/// Suspends for `seconds` (the waiting kind of test: it gives its thread back).
public func wait(_ seconds: Double) async throws {
    try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
}
