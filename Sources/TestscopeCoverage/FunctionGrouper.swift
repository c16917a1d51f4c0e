/// A code region reduced to what the totals need: its start line and whether it ran, in 4 bytes
/// (an export's regions are held until every function is read).
struct CompactRegion {
    private var bits: UInt32

    init(lineStart: UInt32, executed: Bool) {
        bits = min(lineStart, 0x7FFF_FFFF) | (executed ? 0x8000_0000 : 0)
    }

    var lineStart: UInt32 { bits & 0x7FFF_FFFF }
    var executed: Bool {
        get { bits & 0x8000_0000 != 0 }
        set { bits = newValue ? bits | 0x8000_0000 : bits & 0x7FFF_FFFF }
    }
    var executionCount: UInt64 { executed ? 1 : 0 }
}

/// Every function record's code regions, one after the other (one array instead of one per record).
final class RegionPool {
    var regions: [CompactRegion] = []

    func slice(_ start: Int32, _ count: Int32) -> ArraySlice<CompactRegion> {
        regions[Int(start)..<Int(start) + Int(count)]
    }
}

/// A function record reduced to what the model needs: its main file's code regions (in a pool).
struct FunctionRecord {
    var mangledName: String
    /// The name's index in the demangling session (-1: not demangled).
    var nameIndex: Int32 = -1
    var count: UInt64
    /// Code regions in the function's own file, in export order: `regionCount` from `regionStart` in the pool.
    var regionStart: Int32
    var regionCount: Int32
    var start: (line: UInt32, column: UInt32)
    var end: (line: UInt32, column: UInt32)

    /// The file the function is defined in (after --path-equivalence).
    static func mainFile(of function: ExportFunction, equivalences: [PathEquivalence]) -> String? {
        function.mainFileID.map { PathEquivalence.apply(equivalences, to: function.filenames[$0]) }
    }

    init?(_ function: ExportFunction, pool: RegionPool) {
        guard let mainID = function.mainFileID else { return nil }
        // The main file's code regions, read in place (no filtered copy: one allocation less per function).
        let regions = function.regions
        func isCode(_ r: ExportRegion) -> Bool { r.kind == .code && Int(r.fileID) == mainID }
        guard let first = regions.first(where: isCode) else { return nil }
        mangledName = function.name
        count = function.count
        regionStart = Int32(pool.regions.count)
        start = (first.lineStart, first.columnStart)
        end = (first.lineEnd, first.columnEnd)
        var code: Int32 = 0
        for r in regions where isCode(r) {
            pool.regions.append(CompactRegion(lineStart: r.lineStart, executed: r.executionCount > 0 && r.executionCount != LineCoverage.unreliableCount))
            code += 1
            if (r.lineStart, r.columnStart) < start { start = (r.lineStart, r.columnStart) }
            if (r.lineEnd, r.columnEnd) > end { end = (r.lineEnd, r.columnEnd) }
        }
        regionCount = code
    }

    /// Adds the counts of the same function from another export.
    mutating func add(_ other: FunctionRecord, pool: RegionPool) {
        count = Self.saturatingAdd(count, other.count)
        if other.regionCount == regionCount {
            for i in 0..<Int(regionCount) where pool.regions[Int(other.regionStart) + i].executed {
                pool.regions[Int(regionStart) + i].executed = true
            }
        }
    }

    static func saturatingAdd(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Records of the same symbol from several exports become one.
    static func mergeAcrossExports(_ records: [FunctionRecord], pool: RegionPool) -> [FunctionRecord] {
        var order: [String] = []
        var byName: [String: FunctionRecord] = [:]
        for record in records {
            if byName[record.mangledName] == nil {
                order.append(record.mangledName)
                byName[record.mangledName] = record
            } else {
                byName[record.mangledName]!.add(record, pool: pool)
            }
        }
        return order.map { byName[$0]! }
    }
}

/// Groups a file's function records into source functions: records that start at the same place
/// are instantiations of one function; closures and autoclosures go under the innermost enclosing
/// function; functions starting on excluded lines are dropped.
struct FunctionGrouper {
    let records: [FunctionRecord]
    let pool: RegionPool
    let excluded: Set<UInt32>
    let lines: LineTable

    /// Records sharing a start position.
    struct Group {
        var records: [FunctionRecord]
        var name: String
        var start: (line: UInt32, column: UInt32)
        var end: (line: UInt32, column: UInt32)

        init(records: [FunctionRecord], name: String) {
            self.records = records
            self.name = name
            start = records[0].start
            end = records.map(\.end).max { ($0.line, $0.column) < ($1.line, $1.column) }!
        }

        mutating func add(_ record: FunctionRecord) {
            records.append(record)
            if (record.end.line, record.end.column) > (end.line, end.column) { end = record.end }
        }
        var count: UInt64 { records.reduce(0) { FunctionRecord.saturatingAdd($0, $1.count) } }

        func contains(_ position: (line: UInt32, column: UInt32)) -> Bool {
            (start.line, start.column) <= (position.line, position.column)
                && (position.line, position.column) <= (end.line, end.column)
        }
        var span: Int { Int(end.line) * 4096 + Int(end.column) - Int(start.line) * 4096 - Int(start.column) }
    }

    func functions() -> [FunctionCoverage] { functionsAndRegions().functions }

    /// The source functions, and the start line of every code region the totals count (for diff coverage).
    func functionsAndRegions() -> (functions: [FunctionCoverage], regions: [RegionStart]) {
        var regionStarts: [RegionStart] = []
        var parents: [Group] = []
        var closures: [Group] = []
        for group in groups() {
            let closure = SwiftDemangler.isMangledClosure(SwiftDemangler.symbol(in: group.records[0].mangledName))
                || SwiftDemangler.isClosure(group.name)
            if closure { closures.append(group) } else { parents.append(group) }
        }
        var children: [[Group]] = Array(repeating: [], count: parents.count)
        var orphans: [Group] = []
        for closure in closures {
            let candidates = parents.indices.filter { parents[$0].contains(closure.start) }
            if let best = candidates.min(by: { parents[$0].span < parents[$1].span }) {
                children[best].append(closure)
            } else {
                orphans.append(closure)
            }
        }
        var result: [FunctionCoverage] = []
        for (i, parent) in parents.enumerated() where !excluded.contains(parent.start.line) {
            result.append(coverage(of: parent, closures: children[i], regionStarts: &regionStarts))
        }
        for orphan in orphans where !excluded.contains(orphan.start.line) {
            result.append(coverage(of: orphan, closures: [], regionStarts: &regionStarts))
        }
        regionStarts.sort { $0.line < $1.line }
        return (result.sorted { ($0.line, $0.column) < ($1.line, $1.column) }, regionStarts)
    }

    /// Records at the same start (closures and functions apart) are instantiations of one function.
    struct GroupKey: Hashable {
        var line: UInt32
        var column: UInt32
        var closure: Bool
    }

    private func groups() -> [Group] {
        var order: [GroupKey] = []
        var byStart: [GroupKey: Group] = [:]
        for record in records {
            let key = GroupKey(line: record.start.line, column: record.start.column,
                               closure: SwiftDemangler.isMangledClosure(record.mangledName))
            if byStart[key] == nil {
                order.append(key)
                byStart[key] = Group(records: [record], name: record.mangledName)
            } else {
                byStart[key]!.add(record)
            }
        }
        return order.map { byStart[$0]! }
    }

    private func coverage(of group: Group, closures: [Group], regionStarts: inout [RegionStart]) -> FunctionCoverage {
        let nested = closures.sorted { ($0.start.line, $0.start.column) < ($1.start.line, $1.start.column) }
            .filter { !excluded.contains($0.start.line) }
            .map { coverage(of: $0, closures: [], regionStarts: &regionStarts) }
        var regions = regionRatio(group, regionStarts: &regionStarts)
        for child in nested { regions += child.regions }
        let covered = group.records.filter { $0.count > 0 }.count
        return FunctionCoverage(
            name: group.name, mangledName: group.records[0].mangledName,
            line: group.start.line, column: group.start.column, endLine: group.end.line,
            count: group.count, lines: lineRatio(from: group.start.line, to: group.end.line),
            regions: regions, instantiations: CoverageRatio(covered: covered, total: group.records.count),
            closures: nested, nameIndex: group.records[0].nameIndex)
    }

    /// Regions of all instantiations, position by position: covered if any instantiation ran it.
    private func regionRatio(_ group: Group, regionStarts: inout [RegionStart]) -> CoverageRatio {
        var ratio = CoverageRatio()
        let first = group.records[0]
        for (i, region) in pool.slice(first.regionStart, first.regionCount).enumerated() where !excluded.contains(region.lineStart) {
            let ran = group.records.contains { i < $0.regionCount && pool.regions[Int($0.regionStart) + i].executed }
            ratio += CoverageRatio(covered: ran ? 1 : 0, total: 1)
            regionStarts.append(RegionStart(line: region.lineStart, covered: ran))
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
