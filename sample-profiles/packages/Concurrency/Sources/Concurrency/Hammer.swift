import Foundation

/// The shared, non-atomic code path that the parallel tests hammer.
///
/// Coverage counters are plain (non-atomic) `load; add; store` increments unless the build
/// passes `-Xllvm -instrprof-atomic-counter-update-all`. `hit(_:)` has two counters:
///  * c0, the function-entry counter, incremented *before* the lock: threads race on it
///    and lose increments, so c0 ends up a little below the real number of calls;
///  * c1, the `if` branch counter, incremented *inside* the lock: never lost.
/// The `else` region has no counter of its own: its count is the expression c0 - c1.
/// With c1 > c0 that subtraction wraps around (uint64): `llvm-cov show` prints `18.4E`
/// for the `else` lines, `llvm-cov export` clamps the count to 9223372036854775807.
/// With atomic counters c0 == c1 and the `else` region is 0, as it should be.
public final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    public private(set) var total = 0

    public init() {}

    public func hit(_ value: Int) {
        lock.lock()
        if value >= 0 {          // always true in the tests: c1 == real number of calls
            total &+= value
        } else {                 // never runs; its count is c0 - c1 (negative when c0 lost updates)
            total &-= value
        }
        lock.unlock()
    }
}

/// A second racy path without any lock: the loop body counter and the entry counter both
/// lose updates at random, so the counts are merely smaller than the real ones (not negative).
public func unlockedSpin(_ n: Int) -> Int {
    var acc = 0
    for i in 0..<n {
        acc &+= i
    }
    return acc
}
