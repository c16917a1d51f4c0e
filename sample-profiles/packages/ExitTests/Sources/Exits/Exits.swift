import Foundation

/// A nesting limit, as hummingbird's form decoder has one: deep input is refused, not recursed into.
public enum Nesting {
    public static let limit = 32

    /// How deep `text`'s brackets nest, or nil past the limit.
    public static func depth(of text: String) -> Int? {
        var depth = 0, deepest = 0
        for character in text {
            if character == "[" { depth += 1; deepest = max(deepest, depth) }
            if character == "]" { depth -= 1 }
            if deepest > limit { return nil }
        }
        return deepest
    }

    /// Ends the process with status 3 (what an exit test expecting a failure runs).
    public static func giveUp() -> Never {
        exit(3)
    }
}
