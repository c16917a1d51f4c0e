import InventoryCore

public struct Report {
    public var title: String
    public var lines: [String] = []

    public init(title: String) { self.title = title }

    /// String interpolation, nested closures.
    public mutating func render(_ items: [Item]) -> String {
        let byStock = Dictionary(grouping: items) { $0.isInStock }
        lines = byStock.keys.sorted { a, _ in a }.flatMap { inStock in
            (byStock[inStock] ?? []).map { item in
                "\(inStock ? "+" : "-") \(item.label) x\(item.quantity) = \(Money.format(item.totalCents))"
            }
        }

        // A blank line and a comment inside a covered function.
        return ([title] + lines).joined(separator: "\n")
    }

    public var header: String {
        #if DEBUG
        return "\(title) (debug)"
        #else
        // Skipped region in a debug build.
        return title
        #endif
    }
}

/// An async function awaited by a test.
public func loadReport(_ items: [Item], title: String) async -> String {
    await Task.yield()
    var report = Report(title: title)
    return report.render(items)
}

public func summary(_ items: [Item]?) -> String {
    if let items, !items.isEmpty {
        return "\(items.count) items"
    } else {
        return "no items"
    }
}
