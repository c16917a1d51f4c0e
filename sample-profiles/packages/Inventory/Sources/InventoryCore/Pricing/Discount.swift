public enum PricingError: Error, Equatable {
    case negativeQuantity(Int)
    case emptyOrder
}

/// A discount rule; one case is never exercised.
public enum Discount {
    case none
    case percent(Int)
    case fixed(cents: Int)
    case buyXGetY(x: Int, y: Int)

    public func apply(to cents: Int, quantity: Int) -> Int {
        switch self {
        case .none:
            return cents
        case .percent(let p):
            return cents - cents * p / 100
        case .fixed(let off):
            return max(0, cents - off)
        case .buyXGetY(let x, let y):
            // Never exercised by the tests.
            let free = quantity / (x + y) * y
            return cents - free * (cents / max(quantity, 1))
        }
    }
}

public var auditLog: [String] = []

/// Throwing guard on one line whose `throw` never runs; a `defer`; a `for` loop.
public func orderTotal(_ items: [Item], discount: Discount = .none) throws -> Int {
    guard !items.isEmpty else { throw PricingError.emptyOrder }
    defer { auditLog.append("total of \(items.count) items") }

    var sum = 0
    for item in items {
        guard item.quantity >= 0 else { throw PricingError.negativeQuantity(item.quantity) }
        sum += discount.apply(to: item.totalCents, quantity: item.quantity)
    }
    return sum
}

/// `||` and `&&` autoclosures; a multi-line expression.
public func needsReorder(_ item: Item, threshold: Int, force: Bool = false) -> Bool {
    return force
        || (item.quantity < threshold
            && item.priceCents > 0)
}

/// Never called by any test.
public func unusedBulkPrice(_ cents: Int, count: Int) -> Int {
    // A comment inside an uncovered function.

    let total = cents * count
    return total > 10_000 ? total - 500 : total
}
