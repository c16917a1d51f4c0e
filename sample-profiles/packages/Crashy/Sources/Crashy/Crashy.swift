import Foundation

/// Small functions the tests exercise; some of them crash or hang on purpose.
public enum Crashy {
    public static func double(_ x: Int) -> Int { x * 2 }

    public static func element(_ values: [Int], at index: Int) -> Int {
        values[index]  // out of range crashes
    }

    public static func unwrap(_ value: Int?) -> Int {
        value!  // nil crashes
    }

    /// Never returns when `forever` is true.
    public static func wait(forever: Bool) -> Int {
        while forever { Thread.sleep(forTimeInterval: 0.05) }
        return 1
    }
}
