import Foundation
import TestscopeExecution
import TestscopeProfileData

/// One evaluated region of a function record (llvm's `CountedRegion`), with the count as llvm
/// holds it: the signed 64-bit evaluation stored as `UInt64`, so a negative result has wrapped.
/// Export prints the count clamped to `Int64.max` (`exportRegion`); segments are built from the
/// unclamped value, as llvm does. 32 bytes (file ids in 16 bits, the false count of branches in
/// `CountedBranch`): every region of every function is held at once, 388,522 at 800 files.
package struct CountedRegion: Sendable, Equatable {
    package var lineStart: UInt32
    package var columnStart: UInt32
    package var lineEnd: UInt32
    /// Gap bit cleared; whole-line regions keep 4294967295, as llvm-cov prints them.
    package var columnEnd: UInt32
    package var count: UInt64
    private var fileID16: UInt16
    private var expandedFileID16: UInt16
    package var kind: MappingRegionKind
    private var flags: UInt8

    package init(lineStart: UInt32, columnStart: UInt32, lineEnd: UInt32, columnEnd: UInt32, count: UInt64,
                fileID: UInt32 = 0, expandedFileID: UInt32 = 0, kind: MappingRegionKind = .code,
                isUnreliable: Bool = false, trueFolded: Bool = false, falseFolded: Bool = false) {
        self.lineStart = lineStart
        self.columnStart = columnStart
        self.lineEnd = lineEnd
        self.columnEnd = columnEnd
        self.count = count
        // The decoder refuses mappings over more than 65,536 files (`MappingDecoder.decode`).
        self.fileID16 = UInt16(truncatingIfNeeded: fileID)
        self.expandedFileID16 = UInt16(truncatingIfNeeded: expandedFileID)
        self.kind = kind
        self.flags = (isUnreliable ? 1 : 0) | (trueFolded ? 2 : 0) | (falseFolded ? 4 : 0)
    }

    /// The region as an export's reader sees it (kinds above 6 never occur here).
    package init(_ region: ExportRegion) {
        self.init(lineStart: region.lineStart, columnStart: region.columnStart, lineEnd: region.lineEnd,
                  columnEnd: region.columnEnd, count: region.executionCount, fileID: region.fileID,
                  expandedFileID: region.expandedFileID, kind: MappingRegionKind(rawValue: region.kind.rawValue) ?? .code)
    }

    package var fileID: UInt32 { UInt32(fileID16) }
    package var expandedFileID: UInt32 { UInt32(expandedFileID16) }
    /// True when evaluating the region's counters went negative somewhere (the result or a
    /// sub-expression): the compiler's mapping gave the region an expression below zero (Swift's
    /// `for … where … { return … }`), or non-atomic counters lost increments of tests running in
    /// parallel (`NegativeCountCause`). The count is then unknown.
    package var isUnreliable: Bool { flags & 1 != 0 }
    /// Branches: the true / false counter is the literal zero (constant-folded condition).
    package var trueFolded: Bool { flags & 2 != 0 }
    package var falseFolded: Bool { flags & 4 != 0 }

    /// `(line << 32) | column`: locations compare as one integer.
    var start: UInt64 { UInt64(lineStart) << 32 | UInt64(columnStart) }
    var end: UInt64 { UInt64(lineEnd) << 32 | UInt64(columnEnd) }

    /// What `llvm-cov export` prints for the region, as `LLVMCovExportReader` reads it back.
    package var exportRegion: ExportRegion {
        ExportRegion(lineStart: lineStart, columnStart: columnStart, lineEnd: lineEnd, columnEnd: columnEnd,
                     executionCount: exportClamped(count), fileID: fileID, expandedFileID: expandedFileID,
                     kind: RegionKind(rawValue: kind.rawValue) ?? .unknown)
    }
}

/// A branch region (`CountedBranchRegions`): its true side as a `CountedRegion`, and the false count.
package struct CountedBranch: Sendable, Equatable {
    package var region: CountedRegion
    package var falseCount: UInt64

    package var count: UInt64 { region.count }
    package var fileID: UInt32 { region.fileID }
    package var isUnreliable: Bool { region.isUnreliable }
    package var trueFolded: Bool { region.trueFolded }
    package var falseFolded: Bool { region.falseFolded }
}

/// Export's `clamp_uint64_to_int64`: counts above `Int64.max` (wrapped negatives) print as `Int64.max`.
@inline(__always)
func exportClamped(_ count: UInt64) -> UInt64 { min(count, UInt64(Int64.max)) }

/// One kept function record (llvm's `FunctionRecord`).
package struct CountedFunction: Sendable {
    /// The PGO name without its `<Filenames[0]>:` prefix; still mangled.
    package var name: String
    /// The function's file-id map (may repeat a name).
    package var filenames: [String]
    /// Code, expansion, skipped and gap regions in mapping order (`CountedRegions`).
    package var regions: [CountedRegion]
    /// Branch and MC/DC branch regions (`CountedBranchRegions`).
    package var branches: [CountedBranch]
    /// The count of the first region (`ExecutionCount`), unclamped.
    package var executionCount: UInt64
    /// Which binary (in the order given) the record came from.
    package var binaryIndex: Int
    /// Where the record is among all binaries' records (binary order, then covfun order): the
    /// order of the functions of a file.
    package var position: Int

    package init(name: String, filenames: [String], regions: [CountedRegion], branches: [CountedBranch] = [],
                executionCount: UInt64, binaryIndex: Int = 0, position: Int = 0) {
        self.name = name
        self.filenames = filenames
        self.regions = regions
        self.branches = branches
        self.executionCount = executionCount
        self.binaryIndex = binaryIndex
        self.position = position
    }

    /// A record read back from an export (the differential oracle; counts are already clamped there).
    package init(_ function: ExportFunction) {
        self.init(name: function.name, filenames: function.filenames, regions: function.regions.map(CountedRegion.init),
                  executionCount: function.count)
    }

    /// The `functions[]` entry `llvm-cov export` prints for this record.
    package var exportFunction: ExportFunction {
        ExportFunction(name: name, count: exportClamped(executionCount), regions: regions.map(\.exportRegion),
                       filenames: filenames)
    }

    /// Whether any region's count is unreliable (see `CountedRegion.isUnreliable`).
    package var hasUnreliableCounts: Bool {
        regions.contains(where: \.isUnreliable) || branches.contains(where: \.isUnreliable)
    }

    /// llvm's `findMainViewFileID`.
    var mainFileID: Int? { regions.withUnsafeBufferPointer { Self.mainFileID(filenameCount: filenames.count, regions: $0) } }

    /// The same over a record's fields.
    static func mainFileID(filenameCount: Int, regions: UnsafeBufferPointer<CountedRegion>) -> Int? {
        ExportFunction.mainFileID(filenameCount: filenameCount,
                                  expandedFileIDs: regions.lazy.filter { $0.kind == .expansion }.map(\.expandedFileID))
    }
}

/// What `loadFunctionRecord` did with the records it did not keep. llvm-cov warns only about hash
/// mismatches; the rest it drops silently, and the caller should say so.
package struct NativeRecordDiagnostics: Sendable, Equatable {
    /// PGO names whose (name, hash) is not in the profile although the name is ("N functions have mismatched data").
    package var hashMismatches: [String] = []
    /// Records whose regions refer to a counter or expression outside the function's data (a profile
    /// from another build) or to a cyclic expression: dropped, as llvm does, without a word from llvm.
    package var evaluationErrors: [String] = []
    /// Records without a PGO name (llvm-cov fails the whole load on them: "record function name is empty").
    package var unnamed = 0
    /// One-region dummies with a Zero counter for a function counted elsewhere (skipped by llvm).
    package var zeroRegionDummies = 0
    /// Records already seen with the same filenames and name (a later binary's copy).
    package var duplicates = 0
    /// Records the profile has counters for (the rest count as never run, as in llvm-cov).
    package var profiled = 0

    package init() {}

    /// What a user is told about the records evaluation dropped (llvm-cov drops them silently).
    package var warnings: [Diagnostic] {
        guard !evaluationErrors.isEmpty else { return [] }
        return [.warning("\(evaluationErrors.count) function(s) left out: their mapping refers to counters "
            + "the profile does not have (a profile from another build?): "
            + evaluationErrors.prefix(3).joined(separator: ", "))]
    }
}

/// The kept function records, in binary order then covfun order (llvm's `Functions`).
package struct NativeFunctionRecords: Sendable {
    package var functions: [CountedFunction]
    package var diagnostics: NativeRecordDiagnostics

    package init(functions: [CountedFunction], diagnostics: NativeRecordDiagnostics = NativeRecordDiagnostics()) {
        self.functions = functions
        self.diagnostics = diagnostics
    }

    /// `functions[]` as `llvm-cov export` prints it.
    package var exportFunctions: [ExportFunction] { functions.map(\.exportFunction) }

    /// llvm's `CoverageMapping::loadFunctionRecord` over every mapped function, in the order given
    /// (binary order, then covfun order).
    package static func build(_ mapped: [MappedFunction], counters: ProfileCounters) -> NativeFunctionRecords {
        let result = evaluated(parts: [mapped.count]) { _, range, chunk in
            var evaluator = CounterEvaluator()
            for i in range {
                let function = mapped[i]
                counters.counters(nameRef: function.nameRef, funcHash: function.funcHash).withCounts { counts in
                    chunk.load(pgoName: function.pgoName,
                               filenames: function.filenames, expressions: function.expressions, regions: function.regions,
                               binaryIndex: function.binaryIndex, position: i, counts: counts, evaluator: &evaluator)
                }
            }
            return nil
        }
        guard case .success(let records) = result else { preconditionFailure("decoded records cannot fail to decode") }
        return records
    }

    /// The same over binaries' undecoded records: each is decoded into a chunk's scratch storage and
    /// evaluated from there. The first decoding error (binary order, then covfun order) is thrown.
    package static func build(_ binaries: [CoverageMappingRecords], counters: ProfileCounters) throws -> NativeFunctionRecords {
        let starts = binaries.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        return try evaluated(parts: binaries.map(\.count)) { part, range, chunk in
            let binary = binaries[part]
            var evaluator = CounterEvaluator()
            var filenames = FilenameListCache()
            var scratch = MappingDecoder.Decoded()
            do {
                for i in range {
                    let header = try binary.decode(at: i, cache: &filenames, scratch: &scratch)
                    counters.counters(nameRef: header.nameRef, funcHash: header.funcHash).withCounts { counts in
                        chunk.load(pgoName: header.pgoName,
                                   filenames: header.filenames, expressions: scratch.expressions, regions: scratch.regions,
                                   binaryIndex: binary.binaryIndex, position: starts[part] + i, counts: counts, evaluator: &evaluator)
                    }
                }
                return nil
            } catch {
                return DecodingFailure(binaryIndex: binary.binaryIndex, error: error)
            }
        }.get()
    }

    /// A record of binary `binaryIndex` could not be decoded (`error` is the reader's).
    package struct DecodingFailure: Error {
        package var binaryIndex: Int
        package var error: any Error
    }

    /// Every record of every part (binary), evaluated on every core, a chunk of records per task,
    /// straight into the one array that is returned: each chunk writes the records it keeps from
    /// the start of its own slots, then `keep` closes the gaps and drops llvm's duplicates in place.
    /// (Chunks of their own, copied into the result at the end, held every record twice at the
    /// peak of an 800-file report: 4 MB.) A part that fails stops the work after it.
    static func evaluated(parts counts: [Int], _ body: (_ part: Int, _ range: Range<Int>, inout Chunk) -> DecodingFailure?)
        -> Result<NativeFunctionRecords, DecodingFailure> {
        let total = counts.reduce(0, +)
        guard total > 0 else { return .success(NativeFunctionRecords(functions: [])) }
        var failure: DecodingFailure?
        var diagnostics = NativeRecordDiagnostics()
        let functions = [CountedFunction](unsafeUninitializedCapacity: total) { buffer, initialized in
            let base = buffer.baseAddress!
            var chunks: [Chunk] = []
            var offset = 0
            for (part, count) in counts.enumerated() where failure == nil {
                let ranges = Parallel.chunks(count)
                let done = Parallel.map(ranges.count) { c -> (Chunk, DecodingFailure?) in
                    var chunk = Chunk(slots: base + offset + ranges[c].lowerBound, capacity: ranges[c].count)
                    let failed = body(part, ranges[c], &chunk)
                    return (chunk, failed)
                }
                for (chunk, failed) in done {
                    chunks.append(chunk)
                    if failure == nil { failure = failed }
                }
                offset += count
            }
            if failure != nil {
                for chunk in chunks { chunk.slots.deinitialize(count: chunk.count) }
                initialized = 0
            } else {
                (initialized, diagnostics) = keep(chunks, base: base)
            }
        }
        if let failure { return .failure(failure) }
        return .success(NativeFunctionRecords(functions: functions, diagnostics: diagnostics))
    }

    /// One chunk's records, evaluated on their own (on every core, a chunk of records per
    /// evaluator): the kept ones in order, in the chunk's own slots, with their provenance hashes,
    /// and the counts and names of the others. What depends on order across chunks (duplicates) is
    /// decided by `keep`. (An enum per record, holding the function, cost a copy and a destruction
    /// of every record: 7 % of the step's CPU at 800 files.)
    struct Chunk {
        /// Where this chunk's records go: `count` of them initialized, from the first.
        let slots: UnsafeMutablePointer<CountedFunction>
        var count = 0
        var keys: [UInt64] = []
        var diagnostics = NativeRecordDiagnostics()
        /// The filenames hashed last and their hash: the records of one file share one array
        /// (`FilenameListCache`), hashed once for all of them (per record, the paths' hashes were
        /// most of `provenanceKey`'s 17 M instructions at 400 files).
        private var hashedFilenames: [String] = []
        private var filenamesHash: UInt64 = 0

        init(slots: UnsafeMutablePointer<CountedFunction>, capacity: Int) {
            self.slots = slots
            keys.reserveCapacity(capacity)
        }

        /// What `loadFunctionRecord` does with one mapped function, before the duplicate check.
        mutating func load(pgoName: String?, filenames: [String],
                           expressions: [MappingExpression], regions: [MappingRegion], binaryIndex: Int, position: Int,
                           counts: CounterEvaluator.Counts, evaluator: inout CounterEvaluator) {
            guard let pgoName, !pgoName.isEmpty else { diagnostics.unnamed += 1; return }
            load(name: NativeFunctionRecords.displayName(pgoName, firstFilename: filenames.first), pgoName: { pgoName },
                 filenames: filenames, expressions: expressions, regions: regions, binaryIndex: binaryIndex, position: position,
                 counts: counts, evaluator: &evaluator)
        }

        /// What `loadFunctionRecord` does with a named record; `pgoName` is made only for a diagnostic.
        private mutating func load(name: String, pgoName: () -> String, filenames: [String],
                                   expressions: [MappingExpression], regions: [MappingRegion], binaryIndex: Int, position: Int,
                                   counts: CounterEvaluator.Counts, evaluator: inout CounterEvaluator) {
            var profiled = false
            switch counts {
            case .hashMismatch:
                diagnostics.hashMismatches.append(pgoName())
                return
            case .unknown:
                // Zeros sized past the highest counter any region refers to: every reachable counter is in range.
                evaluator.reset(expressions: expressions, counts: nil)
            case .found(let counts):
                profiled = true
                evaluator.reset(expressions: expressions, counts: counts)
            }
            if regions.count == 1, regions[0].counter == .zero, evaluator.firstCount > 0 {
                diagnostics.zeroRegionDummies += 1
                return
            }
            guard let record = NativeFunctionRecords.evaluate(regions, name: name, filenames: filenames, binaryIndex: binaryIndex,
                                                              position: position, evaluator: &evaluator) else {
                diagnostics.evaluationErrors.append(pgoName())
                return
            }
            // Kept or a duplicate (decided by `keep`): both count as profiled, as before.
            if profiled { diagnostics.profiled += 1 }
            let same = filenames.withUnsafeBufferPointer { a in hashedFilenames.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            if !same || filenames.isEmpty {
                filenamesHash = NativeFunctionRecords.provenanceKey(filenames)
                hashedFilenames = filenames
            }
            keys.append(NativeFunctionRecords.provenanceKey(filenamesHash: filenamesHash, name))
            (slots + count).initialize(to: record)
            count += 1
        }
    }

    /// The chunks' records moved down in order to close the gaps between chunks, less llvm's
    /// duplicates (destroyed where they lie). Returns how many are kept, from `base`.
    private static func keep(_ chunks: [Chunk], base: UnsafeMutablePointer<CountedFunction>) -> (Int, NativeRecordDiagnostics) {
        var diagnostics = NativeRecordDiagnostics()
        let count = chunks.reduce(0) { $0 + $1.count }
        // llvm's `RecordProvenance`: a record is a duplicate when a kept one has the same filenames
        // and name. Kept records are found by a hash of those and compared in place; a byte key
        // per record (names and paths concatenated) was ~12 MB at 800 files, all at the peak.
        // One kept record per hash in `seen` (no array per record; no SipHash of a hash); other kept
        // records with the same hash in `more`.
        var seen = UInt64Index(minimumCapacity: count)
        var more: [UInt64: [Int32]] = [:]
        var kept = 0
        for chunk in chunks {
            diagnostics.unnamed += chunk.diagnostics.unnamed
            diagnostics.hashMismatches += chunk.diagnostics.hashMismatches
            diagnostics.zeroRegionDummies += chunk.diagnostics.zeroRegionDummies
            diagnostics.evaluationErrors += chunk.diagnostics.evaluationErrors
            diagnostics.profiled += chunk.diagnostics.profiled
            for (i, key) in chunk.keys.enumerated() {
                let slot = chunk.slots + i
                if let first = seen[key] {
                    if Self.sameProvenance(base[Int(first)], slot.pointee)
                        || more[key, default: []].contains(where: { Self.sameProvenance(base[Int($0)], slot.pointee) }) {
                        diagnostics.duplicates += 1
                        slot.deinitialize(count: 1)
                        continue
                    }
                    more[key, default: []].append(Int32(kept))
                } else {
                    seen[key] = Int32(kept)
                }
                // Never above `slot`: every earlier slot was kept or emptied before it.
                if base + kept != slot { (base + kept).moveInitialize(from: slot, count: 1) }
                kept += 1
            }
        }
        return (kept, diagnostics)
    }

    /// `getFuncNameWithoutPrefix`: drops `<filename>` and the one delimiter after it, byte-wise.
    static func displayName(_ pgoName: String, firstFilename: String?) -> String {
        let start = ByteString.withBytes(pgoName) { displayNameStart($0, firstFilename: firstFilename) }
        return start == 0 ? pgoName : String(decoding: pgoName.utf8.dropFirst(start), as: UTF8.self)
    }

    /// Where `displayName` starts in the PGO name's bytes: after the first filename and its separator
    /// when the name begins with that filename, else 0.
    static func displayNameStart(_ pgoName: UnsafeBufferPointer<UInt8>, firstFilename: String?) -> Int {
        guard let prefix = firstFilename, !prefix.isEmpty else { return 0 }
        return ByteString.withBytes(prefix) { p in
            guard p.count <= pgoName.count, memcmp(pgoName.baseAddress!, p.baseAddress!, p.count) == 0 else { return 0 }
            return min(p.count + 1, pgoName.count)
        }
    }

    /// A per-process random seed of the provenance hash: records with equal hashes are compared
    /// one with another, so names crafted to collide under a known hash would make that quadratic
    /// (a review built 20,000 colliding names: 9.6 s).
    private static let provenanceSeed = UInt64.random(in: .min ... .max)

    /// The identity llvm's `RecordProvenance` keeps, hashed: the filenames' part (each name's length
    /// is in its hash, so names cannot run together; the hash picks candidates, `sameProvenance`
    /// decides) …
    private static func provenanceKey(_ filenames: [String]) -> UInt64 {
        var h = provenanceSeed ^ UInt64(filenames.count)
        for i in filenames.indices { h = ByteString.hash(filenames[i], seed: h) }
        return h
    }

    /// … then the name's.
    private static func provenanceKey(filenamesHash: UInt64, _ name: String) -> UInt64 {
        ByteString.hash(name, seed: filenamesHash)
    }

    /// Same filenames and name, compared as bytes (as llvm compares its `StringRef`s).
    private static func sameProvenance(_ a: CountedFunction, _ b: CountedFunction) -> Bool {
        a.filenames.count == b.filenames.count && ByteString.equal(a.name, b.name)
            && zip(a.filenames, b.filenames).allSatisfy { ByteString.equal($0, $1) }
    }

    private static func evaluate(_ mapped: [MappingRegion], name: String, filenames: [String], binaryIndex: Int, position: Int,
                         evaluator: inout CounterEvaluator) -> CountedFunction? {
        var regions: [CountedRegion] = []
        regions.reserveCapacity(mapped.count)
        var branches: [CountedBranch] = []
        for region in mapped where region.kind != .mcdcDecision {
            guard let count = evaluator.evaluate(region.counter),
                  let falseCount = evaluator.evaluate(region.falseCounter) else { return nil }
            let isBranch = region.kind == .branch || region.kind == .mcdcBranch
            let counted = CountedRegion(
                lineStart: region.lineStart, columnStart: region.columnStart, lineEnd: region.lineEnd,
                columnEnd: region.columnEnd, count: UInt64(bitPattern: count.value), fileID: region.fileID,
                expandedFileID: region.expandedFileID, kind: region.kind,
                isUnreliable: count.wentNegative || falseCount.wentNegative,
                trueFolded: isBranch && region.counter == .zero, falseFolded: isBranch && region.falseCounter == .zero)
            if isBranch {
                branches.append(CountedBranch(region: counted, falseCount: UInt64(bitPattern: falseCount.value)))
            } else {
                regions.append(counted)
            }
        }
        return CountedFunction(name: name, filenames: filenames, regions: regions, branches: branches,
                               executionCount: regions.first?.count ?? 0, binaryIndex: binaryIndex, position: position)
    }
}
