/// Zeller's ddmin over an ordered list of tests, as iFixFlakies uses it to find polluters and
/// state-setters: split into n chunks, try each complement first (the culprits are usually close to
/// the end of a prefix), then each chunk, else double n. The relative order is always kept.
package enum DeltaDebugging {
    /// A minimal subsequence of `items` for which `holds` is true, given that it is true for `items`.
    /// `holds` returns nil when the run budget is spent; then the smallest list found so far is
    /// returned with `complete == false`.
    package static func minimize(_ items: [String], holds: ([String]) throws -> Bool?) rethrows -> (result: [String], complete: Bool) {
        var current = items
        var n = 2
        var tried: [[String]: Bool] = [:]
        func check(_ subset: [String]) throws -> Bool? {
            if let known = tried[subset] { return known }
            guard let value = try holds(subset) else { return nil }
            tried[subset] = value
            return value
        }
        while current.count >= 2 {
            let chunks = split(current, into: n)
            var reduced = false
            for chunk in chunks {
                let complement = current.filter { !chunk.contains($0) }
                guard let ok = try check(complement) else { return (current, false) }
                if ok {
                    current = complement
                    n = max(n - 1, 2)
                    reduced = true
                    break
                }
            }
            if !reduced && n > 2 {
                for chunk in chunks {
                    guard let ok = try check(chunk) else { return (current, false) }
                    if ok {
                        current = chunk
                        n = 2
                        reduced = true
                        break
                    }
                }
            }
            if !reduced {
                if n >= current.count { break }
                n = min(current.count, n * 2)
            }
        }
        return (current, true)
    }

    /// `items` in `n` nearly equal consecutive chunks.
    static func split(_ items: [String], into n: Int) -> [[String]] {
        let n = max(1, min(n, items.count))
        var chunks: [[String]] = []
        var start = 0
        for i in 0..<n {
            let end = start + (items.count - start) / (n - i)
            chunks.append(Array(items[start..<end]))
            start = end
        }
        return chunks
    }
}
