import Foundation

// Process-wide state that the fixture's tests share on purpose: every order dependence planted in
// Tests/FlakyTests goes through one of these (in memory, so it leaks only within one process).

/// A key-value cache. `CacheTests` pollutes it (`store`) and cleans it (`clear`).
public final class Cache: @unchecked Sendable {
    public static let shared = Cache()
    private var values: [String: String] = [:]

    public var isEmpty: Bool { values.isEmpty }
    public func store(_ value: String, for key: String) { values[key] = value }
    public func value(for key: String) -> String? { values[key] }
    public func clear() { values.removeAll() }
}

/// Formatting settings; `LocaleTests` and `TSVExportTests` change the separator and never restore it.
public enum Settings {
    nonisolated(unsafe) public static var separator = ","
}

/// Joins fields with the current separator.
public func joinFields(_ fields: [String]) -> String {
    fields.joined(separator: Settings.separator)
}

/// The signed-in user; `AuthTests` sets it, `SessionTests` relies on it.
public enum Session {
    nonisolated(unsafe) public static var currentUser: String?
}

/// Named handlers; `ShutdownTests` removes them all, after which a lookup with `!` crashes.
public enum Registry {
    nonisolated(unsafe) public static var handlers: [String: (Int) -> Int] = ["default": { $0 * 2 }]
}

/// A counter the Swift Testing suite increments.
public enum Counter {
    nonisolated(unsafe) public static var value = 0
}

/// A small pure function for the stable tests.
public func add(_ a: Int, _ b: Int) -> Int { a + b }
