import TestscopeExecution
import TestscopeProfileData

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

/// The code regions of one file's function records, one after the other (one array instead of one
/// per record; one pool per file, so that files are merged and grouped on every core).
final class RegionPool {
    var regions: [CompactRegion] = []

    /// The regions taken out, to be appended to and `put` back: each access to a class's stored
    /// array is a dynamic exclusivity check (one per region was 17 M instructions at 400 files).
    func take() -> [CompactRegion] {
        var taken: [CompactRegion] = []
        swap(&taken, &regions)
        return taken
    }

    func put(_ taken: inout [CompactRegion]) {
        swap(&taken, &regions)
    }

    func slice(_ start: Int32, _ count: Int32) -> ArraySlice<CompactRegion> {
        regions[Int(start)..<Int(start) + Int(count)]
    }
}

/// A function record reduced to what the model needs: its main file's code regions (in its file's pool).
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
    /// Where the record came in: source index << 32 | function index in its source. A path's records
    /// are kept in this order (which instantiation comes first decides a group's name and regions).
    var order: Int64 = 0

    /// The file the function is defined in (after --path-equivalence).
    static func mainFile(of function: ExportFunction, equivalences: [PathEquivalence]) -> String? {
        function.mainFileID.map { PathEquivalence.apply(equivalences, to: function.filenames[$0]) }
    }

    init?(_ function: ExportFunction, pool: RegionPool) {
        guard let mainID = function.mainFileID else { return nil }
        var extent = Extent()
        var pooled = pool.take()
        // Export counts are already clamped: an unreliable count is `Int64.max`.
        for region in function.regions where region.kind == .code && Int(region.fileID) == mainID {
            extent.add(from: (region.lineStart, region.columnStart), to: (region.lineEnd, region.columnEnd),
                       count: region.executionCount, to: &pooled)
        }
        pool.put(&pooled)
        self.init(name: function.name, count: function.count, extent: extent, pool: pool)
    }

    /// The native engine's record, from its fields, its regions read in place (a generic
    /// initializer with a closure per region was 2 % of a text report's CPU at 800 files, and a
    /// copy of the record retained its arrays).
    init?(name: String, executionCount: UInt64, regions: UnsafeBufferPointer<CountedRegion>, mainID: Int, pool: RegionPool) {
        let main = UInt32(mainID)
        var extent = Extent()
        var pooled = pool.take()
        for region in regions where region.kind == .code && region.fileID == main {
            extent.add(from: (region.lineStart, region.columnStart), to: (region.lineEnd, region.columnEnd),
                       count: exportClamped(region.count), to: &pooled)
        }
        pool.put(&pooled)
        self.init(name: name, count: exportClamped(executionCount), extent: extent, pool: pool)
    }

    /// A record's main-file code regions as they are appended to the pool: how many, and the
    /// range they span.
    private struct Extent {
        var first: (UInt32, UInt32) = (0, 0)
        var last: (UInt32, UInt32) = (0, 0)
        var count: Int32 = 0

        mutating func add(from: (UInt32, UInt32), to: (UInt32, UInt32), count executions: UInt64, to pooled: inout [CompactRegion]) {
            pooled.append(CompactRegion(lineStart: from.0, executed: executions > 0 && executions != LineCoverage.unreliableCount))
            if count == 0 || from < first { first = from }
            if count == 0 || to > last { last = to }
            count += 1
        }
    }

    /// The record of regions just appended to `pool`; nil when there is none.
    private init?(name: String, count: UInt64, extent: Extent, pool: RegionPool) {
        guard extent.count > 0 else { return nil }
        mangledName = name
        self.count = count
        regionStart = Int32(pool.regions.count) - extent.count
        regionCount = extent.count
        start = extent.first
        end = extent.last
    }

    /// Adds the counts of the same function from another export (both in `pool`).
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
}

extension FileRecords {
    /// False when no two names can be equal: every name is ASCII (so `String`'s canonical equality
    /// is byte equality) and their stable hashes all differ. Checked before the merge by name, whose
    /// `String` dictionary was 4.5 % of the text report at 800 files although records of one binary
    /// never repeat a name in a file.
    static func mayRepeatNames(_ records: [FunctionRecord]) -> Bool {
        // By index: a copy of each record retained and released its name and more.
        ByteString.mayRepeat(records.count) { records[$0].mangledName }
    }
}

/// One file's function records and their regions.
struct FileRecords {
    var records: [FunctionRecord] = []
    let pool = RegionPool()

    /// The records of another list for the same file (another export, or another name of the file
    /// that `--path-equivalence` joins), their regions copied into this pool, the records in the
    /// order they came in (`order`), as if they had come one by one.
    mutating func append(_ other: FileRecords) {
        let offset = Int32(pool.regions.count)
        pool.regions += other.pool.regions
        let sorted = records.last.map { last in other.records.first.map { last.order < $0.order } ?? true } ?? true
        for var record in other.records {
            record.regionStart += offset
            records.append(record)
        }
        if !sorted { records.sort { $0.order < $1.order } }
    }

    /// Records of the same symbol (from several exports) become one, in first-seen order.
    mutating func mergeSameSymbols() {
        guard records.count > 1, Self.mayRepeatNames(records) else { return }
        var order: [String] = []
        var byName: [String: FunctionRecord] = [:]
        byName.reserveCapacity(records.count)
        for record in records {
            if byName[record.mangledName] == nil {
                order.append(record.mangledName)
                byName[record.mangledName] = record
            } else {
                byName[record.mangledName]!.add(record, pool: pool)
            }
        }
        guard order.count < records.count else { return }
        records = order.map { byName[$0]! }
    }
}
