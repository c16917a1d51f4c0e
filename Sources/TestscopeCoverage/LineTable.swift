/// A file's executable lines, stored compactly: 8 bytes a line (counts above 2^32-2 kept apart),
/// plus the uncovered spans of the partial lines in one flat array (a model of thousands of files holds every line at once).
/// Reads like an array of `LineCoverage`.
package struct LineTable: RandomAccessCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
    private var numbers: [UInt32] = []
    private var counts: [UInt32] = []
    /// Counts that do not fit in `counts` (which holds `UInt32.max` for them), by position.
    private var largeCounts: [Int32: UInt64] = [:]
    /// Positions (indices into `numbers`) of the lines that have uncovered spans, ascending.
    private var spanOwners: [Int32] = []
    /// Where each owner's spans end in `spans` (they start where the previous owner's end).
    private var spanEnds: [Int32] = []
    private var spans: [ColumnSpan] = []

    package init() {}

    package init<S: Sequence>(_ lines: S) where S.Element == LineCoverage {
        let underestimated = lines.underestimatedCount
        numbers.reserveCapacity(underestimated)
        counts.reserveCapacity(underestimated)
        for line in lines { append(line) }
        shrink()
    }

    package init(arrayLiteral elements: LineCoverage...) { self.init(elements) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { numbers.count }

    package subscript(position: Int) -> LineCoverage {
        LineCoverage(line: numbers[position], count: count(at: position), uncoveredSpans: uncoveredSpans(at: position))
    }

    /// The line number at `position`, without building a `LineCoverage`.
    package func lineNumber(at position: Int) -> UInt32 { numbers[position] }

    /// The execution count at `position`, without building a `LineCoverage`.
    package func count(at position: Int) -> UInt64 {
        let small = counts[position]
        return small == .max ? largeCounts[Int32(position)] ?? UInt64(small) : UInt64(small)
    }

    /// The lines that have uncovered spans, in order: each one's position and spans, without building
    /// every line's `LineCoverage` (`coverage.json`'s partial lines walked all lines for them).
    package func forEachLineWithSpans(_ body: (Int, ArraySlice<ColumnSpan>) throws -> Void) rethrows {
        for owner in spanOwners.indices {
            let start = owner == 0 ? 0 : Int(spanEnds[owner - 1])
            try body(Int(spanOwners[owner]), spans[start..<Int(spanEnds[owner])])
        }
    }

    /// The lines whose numbers are not in `excluded`.
    package func removing(_ excluded: Set<UInt32>) -> LineTable {
        LineTable(lazy.filter { !excluded.contains($0.line) })
    }

    package func makeIterator() -> Iterator { Iterator(table: self) }

    /// Walks the lines in order, following the partial lines without searching for them.
    package struct Iterator: IteratorProtocol {
        let table: LineTable
        var position = 0
        var owner = 0

        package mutating func next() -> LineCoverage? {
            guard position < table.numbers.count else { return nil }
            defer { position += 1 }
            var spans: [ColumnSpan] = []
            if owner < table.spanOwners.count, Int(table.spanOwners[owner]) == position {
                spans = table.spans(ofOwner: owner)
                owner += 1
            }
            return LineCoverage(line: table.numbers[position], count: table.count(at: position), uncoveredSpans: spans)
        }
    }

    mutating func reserveCapacity(_ lines: Int) {
        numbers.reserveCapacity(lines)
        counts.reserveCapacity(lines)
    }

    mutating func append(_ line: LineCoverage) {
        append(line: line.line, count: line.count, spans: line.uncoveredSpans)
    }

    mutating func append(line: UInt32, count: UInt64, spans lineSpans: [ColumnSpan]) {
        if !lineSpans.isEmpty {
            spanOwners.append(Int32(numbers.count))
            spans.append(contentsOf: lineSpans)
            spanEnds.append(Int32(spans.count))
        }
        if count >= UInt64(UInt32.max) { largeCounts[Int32(numbers.count)] = count }
        counts.append(UInt32(Swift.min(count, UInt64(UInt32.max))))
        numbers.append(line)
    }

    /// Drops growth slack (`Array(array)` would keep the same buffer).
    mutating func shrink() {
        func exact<T>(_ array: inout [T]) {
            if array.capacity > array.count + array.count / 16 + 8 { array = array.withUnsafeBufferPointer { Array($0) } }
        }
        exact(&numbers); exact(&counts); exact(&spanOwners); exact(&spanEnds); exact(&spans)
    }

    private func uncoveredSpans(at position: Int) -> [ColumnSpan] {
        var low = 0, high = spanOwners.count
        while low < high {
            let mid = (low + high) / 2
            if Int(spanOwners[mid]) < position { low = mid + 1 } else { high = mid }
        }
        guard low < spanOwners.count, Int(spanOwners[low]) == position else { return [] }
        return spans(ofOwner: low)
    }

    private func spans(ofOwner owner: Int) -> [ColumnSpan] {
        let start = owner == 0 ? 0 : Int(spanEnds[owner - 1])
        return Array(spans[start..<Int(spanEnds[owner])])
    }

    package static func == (a: LineTable, b: LineTable) -> Bool {
        a.numbers == b.numbers && a.counts == b.counts && a.largeCounts == b.largeCounts && a.spanOwners == b.spanOwners
            && a.spanEnds == b.spanEnds && a.spans == b.spans
    }
}
