/// A generic container, used with `Item` and with `String` in the tests.
public struct Bin<Element> {
    public private(set) var elements: [Element] = []

    public init() {}

    public mutating func add(_ element: Element) {
        elements.append(element)
    }

    public var count: Int { elements.count }

    /// Closures nested in closures.
    public func grouped<Key: Hashable>(by key: (Element) -> Key) -> [Key: [Element]] {
        var result: [Key: [Element]] = [:]
        elements.forEach { element in
            let k = key(element)
            result[k, default: []].append(element)
        }
        return result.mapValues { group in
            group.filter { _ in
                true
            }
        }
    }
}

/// Generic function, used with two type arguments.
public func firstMatch<T>(_ values: [T], where predicate: (T) -> Bool) -> T? {
    var index = 0
    while index < values.count {
        if predicate(values[index]) {
            return values[index]
        }
        index += 1
    }
    return nil
}

/// A class with a `lazy var`.
public final class Catalog {
    public private(set) var items: [Item]
    public private(set) var indexBuilds = 0

    public init(items: [Item]) { self.items = items }

    public lazy var bySKU: [String: Item] = {
        indexBuilds += 1
        var map: [String: Item] = [:]
        for item in items {
            map[item.sku] = item
        }
        return map
    }()

    public func lookup(_ sku: String?) -> Item? {
        // `??` is an autoclosure on its right-hand side.
        let key = sku ?? "unknown"
        return bySKU[key]
    }
}
