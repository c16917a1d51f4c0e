import Foundation

// State that lives as long as the process: every order-dependent pair of the corpus goes through one of
// these, each a different kind a Swift user meets (a global, a static, a singleton's member, a
// UserDefaults key, an environment variable) — and a file, which outlives the process.

/// A global variable, written through a function (the test never names it).
nonisolated(unsafe) public var retryLimit = 3

/// Sets `retryLimit`.
public func configureRetries(_ limit: Int) { retryLimit = limit }

/// How many attempts a request gets.
public func attempts() -> Int { retryLimit + 1 }

/// A static flag.
public enum FeatureFlags {
    nonisolated(unsafe) public static var beta = false
}

/// The menu: one more item while `FeatureFlags.beta` is on.
public func menuItems() -> [String] { FeatureFlags.beta ? ["Home", "Labs"] : ["Home"] }

/// A singleton whose stored property changes.
public final class PluginRegistry: @unchecked Sendable {
    public static let shared = PluginRegistry()
    public private(set) var names: [String] = []

    public func register(_ name: String) { names.append(name) }
    public func reset() { names.removeAll() }
    public var isEmpty: Bool { names.isEmpty }
}

/// The signed-in user's token (set by the login, needed by the profile).
public enum Auth {
    nonisolated(unsafe) public static var token: String?
}

/// The profile's name, only for a signed-in user.
public func profileName() -> String? { Auth.token == nil ? nil : "ada" }

/// A UserDefaults key (on Linux `UserDefaults.standard` lives in the process; on macOS it is written to disk).
public enum Onboarding {
    public static func complete() { UserDefaults.standard.set(true, forKey: "flakycauses.onboarded") }
    public static var isDone: Bool { UserDefaults.standard.bool(forKey: "flakycauses.onboarded") }
}

/// An environment variable.
public func region() -> String {
    getenv("FLAKYCAUSES_REGION").map { String(cString: $0) } ?? "us"
}

/// A lock file: state outside the process's memory (one file per process, removed at exit).
public enum ExportLock {
    public static var path: String { NSTemporaryDirectory() + "flakycauses-export-\(getpid()).lock" }
    public static func acquire() {
        FileManager.default.createFile(atPath: path, contents: Data())
        atexit { _ = unlink(ExportLock.path) }
    }
    public static var isHeld: Bool { FileManager.default.fileExists(atPath: path) }
    public static func release() { try? FileManager.default.removeItem(atPath: path) }
}

/// A counter the Swift Testing suite shares.
public enum Tally {
    nonisolated(unsafe) public static var count = 0
}

/// A buffer two Swift Testing tests write at once when Swift Testing runs them in parallel.
public enum Scratch {
    nonisolated(unsafe) public static var owner = ""
}

/// Fixed CPU work (about a millisecond per 20 units in a debug build on this corpus's machine).
@inline(never) public func busyWork(_ units: Int) -> UInt64 {
    var x: UInt64 = 1
    for i in 0..<(units * 10_000) { x = x &* 6364136223846793005 &+ UInt64(truncatingIfNeeded: i) }
    return x
}
