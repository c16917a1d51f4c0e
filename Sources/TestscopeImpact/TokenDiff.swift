import TestscopeCoverage

/// One edit between two token lists: `old` tokens replaced by `new` tokens (either may be empty).
package struct TokenEdit: Equatable, Sendable {
    package var old: Range<Int>
    package var new: Range<Int>
}

/// The edits that turn one file's tokens into another's (Myers' O(ND) diff on the token texts), so that
/// each edit can be placed in the old file's functions; past `maxEdits` the changed middle becomes one
/// edit (coarser, never missing a change).
package enum TokenDiff {
    package static func edits(_ old: [SourceToken], _ new: [SourceToken], maxEdits: Int = 4000) -> [TokenEdit] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix].text == new[prefix].text { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
              old[old.count - 1 - suffix].text == new[new.count - 1 - suffix].text { suffix += 1 }
        let a = old[prefix..<(old.count - suffix)].map(\.text)
        let b = new[prefix..<(new.count - suffix)].map(\.text)
        if a.isEmpty && b.isEmpty { return [] }
        let whole = [TokenEdit(old: prefix..<(old.count - suffix), new: prefix..<(new.count - suffix))]
        guard !a.isEmpty, !b.isEmpty, let script = myers(a, b, maxEdits: maxEdits) else { return whole }
        return script.map { TokenEdit(old: ($0.old.lowerBound + prefix)..<($0.old.upperBound + prefix),
                                      new: ($0.new.lowerBound + prefix)..<($0.new.upperBound + prefix)) }
    }

    /// The shortest edit script as grouped edits; nil when it has more than `maxEdits` steps.
    static func myers(_ a: [String], _ b: [String], maxEdits: Int) -> [TokenEdit]? {
        let n = a.count, m = b.count, offset = n + m + 1
        var v = [Int](repeating: 0, count: 2 * offset + 1)
        var trace: [[Int]] = []
        var found = false
        // The trace keeps one vector per step: bounded to ~160 MB, past that the middle is one edit.
        let steps = min(n + m, maxEdits, 20_000_000 / v.count)
        for d in 0...steps {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] { x += 1; y += 1 }
                v[offset + k] = x
                if x >= n && y >= m { found = true; break }
            }
            if found { break }
        }
        guard found else { return nil }
        // Back through the trace: each step is a deletion (x−1) or an insertion (y−1) after a snake.
        var x = n, y = m
        var matched: [(Int, Int)] = []
        for d in stride(from: trace.count - 1, through: 1, by: -1) {
            let v = trace[d], k = x - y
            let down = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])
            let previousK = down ? k + 1 : k - 1
            let previousX = v[offset + previousK], previousY = previousX - previousK
            while x > previousX, y > previousY { x -= 1; y -= 1; matched.append((x, y)) }
            (x, y) = (previousX, previousY)
        }
        while x > 0, y > 0 { x -= 1; y -= 1; matched.append((x, y)) }
        matched.reverse()
        var edits: [TokenEdit] = []
        var (i, j) = (0, 0)
        for (mx, my) in matched + [(n, m)] {
            if mx > i || my > j { edits.append(TokenEdit(old: i..<mx, new: j..<my)) }
            (i, j) = (mx + 1, my + 1)
        }
        return edits
    }
}
