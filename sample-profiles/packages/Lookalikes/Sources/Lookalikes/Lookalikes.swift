/// A value whose description is the same for every value: parameterized cases of it print alike.
public struct Token: CustomStringConvertible, Sendable {
    public let value: Int
    public init(_ value: Int) { self.value = value }
    public var description: String { "Token" }
}

public func isEven(_ value: Int) -> Bool { value % 2 == 0 }

/// A file's size, for the same-named test classes.
public func size(of text: String) -> Int { text.utf8.count }
