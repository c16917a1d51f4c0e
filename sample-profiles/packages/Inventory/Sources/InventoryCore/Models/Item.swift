/// A stock-keeping unit.
public struct Item: Equatable, Hashable {
    public let sku: String
    public var name: String
    public var priceCents: Int
    public var quantity: Int

    /// Failable init: the `return nil` branch is never taken by the tests.
    public init?(sku: String, name: String, priceCents: Int, quantity: Int = 0) {
        guard !sku.isEmpty, priceCents >= 0 else { return nil }
        self.sku = sku
        self.name = name
        self.priceCents = priceCents
        self.quantity = quantity
    }

    /// Computed property.
    public var totalCents: Int { priceCents * quantity }

    public var isInStock: Bool {
        quantity > 0 && priceCents > 0
    }

    /// Static method.
    public static func parse(_ line: String) -> Item? {
        let parts = line.split(separator: ",").map { String($0) }
        guard parts.count == 4 else { return nil }
        guard let price = Int(parts[2]), let qty = Int(parts[3]) else {
            // Never reached by the tests.
            return nil
        }
        return Item(sku: parts[0], name: parts[1], priceCents: price, quantity: qty)
    }
}

/// Protocol with a default implementation in an extension.
public protocol Labeled {
    var name: String { get }
    var label: String { get }
}

extension Labeled {
    public var label: String { "[\(name)]" }
}

extension Item: Labeled {}
