/// `async` functions, `defer`, generics and skipped regions.

/// An `async` function awaited from the tests; it suspends (`Task.yield`) between the regions.
public func sumAsync(_ values: [Int]) async -> Int {
    var total = 0
    for v in values {
        total += v
        if v % 64 == 0 {
            await Task.yield()   // a suspension point inside a loop body
        }
    }
    return total
}

/// `defer` runs on every exit; the early `return` below is taken once per test call.
public func withCleanup(_ log: inout [String], early: Bool) -> Int {
    log.append("start")
    defer { log.append("cleanup") }   // `defer` body: a region of its own
    if early {
        return 1
    }
    log.append("late")
    return 2
}

/// A generic function used with two types (`Int` and `String`); at -Onone it is one
/// function record (no per-type instantiations), whatever the type arguments.
public func largest<T: Comparable>(_ items: [T]) -> T? {
    guard var best = items.first else { return nil }
    for item in items.dropFirst() where item > best {
        best = item
    }
    return best
}

/// `#if` inside a function body: the inactive branches are *skipped regions*
/// (segments with hasCount = false, lines without a count in show).
public func platformName() -> String {
    #if os(Windows)
    let name = "windows"          // skipped: inactive on Linux
    #elseif os(Linux)
    let name = "linux"
    #else
    let name = "other"            // skipped
    #endif
    #if NEVER_DEFINED_FLAG
    print("never compiled")       // skipped
    #endif
    return name
}

/// Never called by any test: present in the binary and in the mapping, count 0
/// (absent from the `-sparse` merged profile).
public func neverCalled(_ x: Int) -> Int {
    if x > 0 {
        return x * 2
    }
    return -x
}

/// A `private` function nothing references. At -Onone it is still emitted, with its counters
/// and profile data record (so it behaves like `neverCalled`); the optimised `Stripped` target
/// shows the same function really removed from the binary while its mapping record stays.
private func deadAndGone(_ x: Int) -> Int {
    if x > 1 {
        return x - 1
    }
    return x + 1
}
