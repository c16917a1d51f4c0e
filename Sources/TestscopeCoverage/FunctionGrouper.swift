import TestscopeProfileData

/// Groups a file's function records into source functions: records that start at the same place
/// are instantiations of one function; closures and autoclosures go under the innermost enclosing
/// function; functions starting on excluded lines are dropped.
///
/// Groups are record indices (a first record and a chain), not arrays of copied records: the
/// grouping was 10 % of the text report's CPU at 800 files, most of it allocations and retains.
struct FunctionGrouper {
    let records: [FunctionRecord]
    let pool: RegionPool
    let excluded: Set<UInt32>
    let lines: LineTable
    /// Whether `functionsAndRegions` collects the regions' starts (for diff coverage only).
    var keepsRegionStarts = true

    /// Records sharing a start position: the first record, the others chained through `next`.
    struct Group {
        var first: Int32
        var last: Int32
        var start: (line: UInt32, column: UInt32)
        var end: (line: UInt32, column: UInt32)
        var isClosure: Bool

        func contains(_ position: (line: UInt32, column: UInt32)) -> Bool {
            (start.line, start.column) <= (position.line, position.column)
                && (position.line, position.column) <= (end.line, end.column)
        }
        var span: Int { Int(end.line) * 4096 + Int(end.column) - Int(start.line) * 4096 - Int(start.column) }
    }

    func functions() -> [FunctionCoverage] { functionsAndRegions().functions }

    /// The source functions, and the start line of every code region the totals count (for diff coverage).
    func functionsAndRegions() -> (functions: [FunctionCoverage], regions: [RegionStart]) {
        let (groups, next) = self.groups()
        var regionStarts: [RegionStart] = []
        var parents: [Int] = []
        var closures: [Int] = []
        parents.reserveCapacity(groups.count)
        for g in groups.indices {
            if groups[g].isClosure { closures.append(g) } else { parents.append(g) }
        }
        // Each closure under the parent with the smallest span that contains its start (the first such).
        var children: [[Int]] = Array(repeating: [], count: parents.count)
        var orphans: [Int] = []
        for closure in closures {
            var best = -1
            for p in parents.indices where groups[parents[p]].contains(groups[closure].start) {
                if best < 0 || groups[parents[p]].span < groups[parents[best]].span { best = p }
            }
            if best >= 0 { children[best].append(closure) } else { orphans.append(closure) }
        }
        var result: [FunctionCoverage] = []
        result.reserveCapacity(parents.count + orphans.count)
        for (i, parent) in parents.enumerated() where !isExcluded(groups[parent].start.line) {
            result.append(coverage(of: parent, groups, next, closures: children[i], regionStarts: &regionStarts))
        }
        for orphan in orphans where !isExcluded(groups[orphan].start.line) {
            result.append(coverage(of: orphan, groups, next, closures: [], regionStarts: &regionStarts))
        }
        if keepsRegionStarts { regionStarts.sort { $0.line < $1.line } }
        // In place: `sorted` copied every function (and retained its names and closures).
        result.sort { ($0.line, $0.column) < ($1.line, $1.column) }
        return (result, regionStarts)
    }

    private func isExcluded(_ line: UInt32) -> Bool { !excluded.isEmpty && excluded.contains(line) }

    /// Records at the same start (closures and functions apart) are instantiations of one function:
    /// the groups in the order of their first record, and each record's next record in its group (-1: none).
    private func groups() -> ([Group], [Int32]) {
        var groups: [Group] = []
        var next = [Int32](repeating: -1, count: records.count)
        // By start position (line and column packed into one key), closures and functions apart:
        // a `Dictionary` of a three-field key hashed each with SipHash (3 % of the text report).
        var byStart = UInt64Index(minimumCapacity: records.count)
        // Sized for every record, as `byStart`: grown from 16 slots it was resized 2,464 times at 400 files.
        var closuresByStart = UInt64Index(minimumCapacity: records.count)
        // Fields read in place (a copy of each record retained and released its name).
        for r in records.indices {
            let mangledClosure = SwiftDemangler.isMangledClosure(records[r].mangledName)
            let start = records[r].start, end = records[r].end
            let key = UInt64(start.line) << 32 | UInt64(start.column)
            if let g = mangledClosure ? closuresByStart[key] : byStart[key] {
                next[Int(groups[Int(g)].last)] = Int32(r)
                groups[Int(g)].last = Int32(r)
                if (end.line, end.column) > (groups[Int(g)].end.line, groups[Int(g)].end.column) { groups[Int(g)].end = end }
            } else {
                if mangledClosure { closuresByStart[key] = Int32(groups.count) } else { byStart[key] = Int32(groups.count) }
                // The group's name is its first record's (still mangled here; a demangled export name may say "closure #").
                groups.append(Group(first: Int32(r), last: Int32(r), start: start, end: end,
                                    isClosure: mangledClosure || SwiftDemangler.isClosure(records[r].mangledName)))
            }
        }
        return (groups, next)
    }

    /// The record indices of group `g`, in record order.
    private func members(_ group: Group, _ next: [Int32]) -> UnfoldSequence<Int, (Int?, Bool)> {
        sequence(first: Int(group.first)) { r in next[r] >= 0 ? Int(next[r]) : nil }
    }

    private func coverage(of g: Int, _ groups: [Group], _ next: [Int32], closures: [Int],
                          regionStarts: inout [RegionStart]) -> FunctionCoverage {
        let group = groups[g]
        // Most functions have no closures: sorting the empty list still made an array per function
        // (34,000 allocations at 400 files).
        let nested = closures.isEmpty ? [] : closures
            .sorted { (groups[$0].start.line, groups[$0].start.column) < (groups[$1].start.line, groups[$1].start.column) }
            .filter { !isExcluded(groups[$0].start.line) }
            .map { coverage(of: $0, groups, next, closures: [], regionStarts: &regionStarts) }
        var regions = regionRatio(group, next, regionStarts: &regionStarts)
        for child in nested { regions += child.regions }
        var count: UInt64 = 0, covered = 0, total = 0
        for r in members(group, next) {
            count = FunctionRecord.saturatingAdd(count, records[r].count)
            if records[r].count > 0 { covered += 1 }
            total += 1
        }
        let first = Int(group.first)
        return FunctionCoverage(
            name: records[first].mangledName, mangledName: records[first].mangledName,
            line: group.start.line, column: group.start.column, endLine: group.end.line,
            count: count, lines: lineRatio(from: group.start.line, to: group.end.line),
            regions: regions, instantiations: CoverageRatio(covered: covered, total: total),
            closures: nested, nameIndex: records[first].nameIndex)
    }

    /// Regions of all instantiations, position by position: covered if any instantiation ran it.
    private func regionRatio(_ group: Group, _ next: [Int32], regionStarts: inout [RegionStart]) -> CoverageRatio {
        var ratio = CoverageRatio()
        // The pool's array read once and the first record's fields in place: read through the pool
        // (a class) at each region, and copied, they were a retain and a release per region.
        let regions = pool.regions
        let (firstStart, firstCount) = (Int(records[Int(group.first)].regionStart), Int(records[Int(group.first)].regionCount))
        let single = group.first == group.last
        for i in 0..<firstCount {
            let region = regions[firstStart + i]
            guard !isExcluded(region.lineStart) else { continue }
            let ran = single ? region.executed : members(group, next).contains {
                i < records[$0].regionCount && regions[Int(records[$0].regionStart) + i].executed
            }
            ratio += CoverageRatio(covered: ran ? 1 : 0, total: 1)
            if keepsRegionStarts { regionStarts.append(RegionStart(line: region.lineStart, covered: ran)) }
        }
        return ratio
    }

    /// The file's executable lines between two lines (inclusive), from the per-line view.
    private func lineRatio(from first: UInt32, to last: UInt32) -> CoverageRatio {
        var low = 0, high = lines.count
        while low < high {
            let mid = (low + high) / 2
            if lines.lineNumber(at: mid) < first { low = mid + 1 } else { high = mid }
        }
        var ratio = CoverageRatio()
        var i = low
        while i < lines.count && lines.lineNumber(at: i) <= last {
            ratio += CoverageRatio(covered: lines.count(at: i) > 0 ? 1 : 0, total: 1)
            i += 1
        }
        return ratio
    }
}
