/// Turns a file's segments into per-line counts with llvm's own rules
/// (`LineCoverageStats` and `LineCoverageIterator` in llvm's CoverageMapping.cpp), so that every
/// line matches `llvm-cov show`; and finds partially covered lines the way llvm-cov's HTML view
/// colours them (a line cut at segment columns; a piece after a segment with count 0 is uncovered).
package enum LineCoverageBuilder {
    package static func lines(from segments: [ExportSegment], source: SourceText? = nil) -> [LineCoverage] {
        var result: [LineCoverage] = []
        forEachLine(segments, source: source) { line, count, spans in
            result.append(LineCoverage(line: line, count: count, uncoveredSpans: spans.isEmpty ? [] : spans))
        }
        return result
    }

    /// The same, straight into the model's table (no `LineCoverage` array on the way: its
    /// elements, each with a spans array, were copied and released once more).
    static func table(from segments: [ExportSegment], source: SourceText? = nil) -> LineTable {
        var table = LineTable()
        // At most one line per line between the first and the last segment.
        if let first = segments.first?.line, let last = segments.last?.line, last >= first {
            table.reserveCapacity(Int(last - first) + 1)
        }
        forEachLine(segments, source: source) { table.append(line: $0, count: $1, spans: $2) }
        table.shrink()
        return table
    }

    /// Each mapped line's number, count and uncovered spans (in one scratch array reused from line
    /// to line: an array per partial line was 33,000 allocations at 400 files).
    ///
    /// The segments and the source are read through buffers, whose reads are not bounds-checked:
    /// this loop and `uncoveredSpans` went from 50.8 to 39.6 M instructions (callgrind, text report
    /// at 400 files: 936.7 → 923.6 M). Every index below stays inside its range.
    @inline(__always)
    private static func forEachLine(_ segments: [ExportSegment], source: SourceText?, _ emit: (UInt32, UInt64, [ColumnSpan]) -> Void) {
        segments.withUnsafeBufferPointer { segments in
            if let source {
                source.withBuffers { forEachLine(segments, source: $0, emit) }
            } else {
                forEachLine(segments, source: nil, emit)
            }
        }
    }

    @inline(__always)
    private static func forEachLine(_ segments: UnsafeBufferPointer<ExportSegment>, source: SourceText.Buffers?,
                                    _ emit: (UInt32, UInt64, [ColumnSpan]) -> Void) {
        guard let firstLine = segments.first?.line else { return }
        var spans: [ColumnSpan] = []
        var wrapped: ExportSegment? = nil
        var index = 0
        var line = firstLine
        let n = segments.count
        while index < n {
            let start = index
            while index < n && segments[index].line == line { index += 1 }
            if start == index {
                // No segment starts on this line or on the following ones up to the next segment:
                // they all inherit the wrapped segment's count.
                let nextLine = segments[index].line
                if let w = wrapped, w.hasCount, nextLine > line {
                    if !spans.isEmpty { spans.removeAll(keepingCapacity: true) }
                    for l in line..<nextLine { emit(l, w.count, spans) }
                }
                line = max(nextLine, line + 1)
                continue
            }
            if let count = stats(segments, start..<index, wrapped: wrapped, line: line, source: source, spans: &spans) {
                emit(line, count, spans)
            }
            wrapped = segments[index - 1]
            line += 1
        }
    }

    /// `LineCoverageStats::LineCoverageStats` for one line with segments: its count (nil when it is
    /// not mapped), its uncovered spans in `spans` (emptied first).
    static func stats(_ segments: UnsafeBufferPointer<ExportSegment>, _ range: Range<Int>, wrapped: ExportSegment?,
                      line: UInt32, source: SourceText.Buffers?, spans: inout [ColumnSpan]) -> UInt64? {
        // (Most lines have none: `removeAll` itself cost 56 instructions a line.)
        if !spans.isEmpty { spans.removeAll(keepingCapacity: true) }
        var regionStarts = 0
        var anyCountedEntry = false
        for i in range {
            let s = segments[i]
            if s.startsCountedRegion && regionStarts < 2 { regionStarts += 1 }
            if s.isRegionEntry && s.hasCount { anyCountedEntry = true }
        }
        let firstOnLine = segments[range.lowerBound]
        let startOfSkipped = !firstOnLine.hasCount && firstOnLine.isRegionEntry
        var mapped = !startOfSkipped && ((wrapped?.hasCount ?? false) || regionStarts > 0)
        mapped = mapped || anyCountedEntry
        guard mapped else { return nil }
        var count = wrapped?.count ?? 0
        if regionStarts > 0 {
            for i in range where segments[i].startsCountedRegion { count = max(count, segments[i].count) }
        }
        if count > 0 {
            uncoveredSpans(segments, range, wrapped: wrapped, line: line, source: source, into: &spans)
        }
        return count
    }

    /// The pieces of the line that llvm-cov's HTML view paints red, appended to `spans`.
    static func uncoveredSpans(_ segments: UnsafeBufferPointer<ExportSegment>, _ range: Range<Int>, wrapped: ExportSegment?,
                               line: UInt32, source: SourceText.Buffers?, into spans: inout [ColumnSpan]) {
        func add(_ start: UInt32, _ end: UInt32?, _ count: UInt64) {
            if let end, end <= start { return }
            if let source, !source.hasCode(line: line, from: start, to: end) { return }
            if let last = spans.last, last.end == start { spans[spans.count - 1].end = end; return }
            spans.append(ColumnSpan(start: start, end: end, count: count))
        }
        if let w = wrapped, w.hasCount, w.count == 0 {
            add(1, segments[range.lowerBound].column, 0)
        }
        for i in range {
            let s = segments[i]
            guard s.hasCount, s.count == 0 else { continue }
            let end: UInt32? = i + 1 < range.upperBound ? segments[i + 1].column : nil
            add(s.column, end, 0)
        }
    }
}
