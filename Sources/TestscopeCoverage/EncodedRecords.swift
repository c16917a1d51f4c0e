import TestscopeExecution
import TestscopeProfileData

/// The native engine's function records still encoded (the binaries' covfun bytes and the summed
/// counters), with what llvm-cov's record loading knows before it evaluates anything: each
/// record's filenames, whether it has a name, and the profile's answer for it. The records are
/// evaluated a batch of files at a time while the model is built (`NativeRecordSource`), so the
/// evaluated regions of every function never exist at once: evaluating them all first was the
/// peak of every report (+41 MB at 1,500 files, 40 % of the peak).
package struct EncodedFunctionRecords: Sendable {
    let binaries: [CoverageMappingRecords]
    /// The profile's counters, reached through `entries` (without the profile's index by NameRef).
    let counters: ProfileCounters.Found
    /// Where each binary's records start among all records (binary order, then covfun order).
    private let starts: [Int]
    /// Each record's filenames (the records of one file share one array); empty for a record llvm
    /// drops before evaluating it (no name, or a hash mismatch), so that it names no file.
    let filenames: [[String]]
    /// Each record's place in `counters` (`ProfileCounters.entry(nameRef:funcHash:)`), found while
    /// the headers are read and used again when the record is evaluated.
    let entries: [Int32]
    /// What is known without evaluating: records without a name, hash mismatches, and records the
    /// profile has counters for (`profiled`; evaluation may still drop some of them).
    package let diagnostics: NativeRecordDiagnostics
    /// Records that have a name.
    package let namedCount: Int

    /// Records llvm would evaluate: named, and not a hash mismatch.
    package var loadableCount: Int { namedCount - diagnostics.hashMismatches.count }

    /// Every binary's record headers and file-id maps read (on every core). A record that cannot be
    /// read throws `NativeFunctionRecords.DecodingFailure` (the first in binary, then covfun order).
    package static func read(_ binaries: [CoverageMappingRecords], counters: ProfileCounters) throws -> EncodedFunctionRecords {
        let starts = binaries.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        var filenames: [[String]] = []
        filenames.reserveCapacity(starts.last!)
        var entries: [Int32] = []
        entries.reserveCapacity(starts.last!)
        var diagnostics = NativeRecordDiagnostics()
        var named = 0
        for binary in binaries {
            let ranges = Parallel.chunks(binary.count)
            let parts = Parallel.map(ranges.count) { c -> Result<Part, NativeFunctionRecords.DecodingFailure> in
                var part = Part()
                var cache = FilenameListCache()
                var indices: [Int] = []
                do {
                    for i in ranges[c] {
                        let header = binary.header(at: i)
                        guard header.isNamed else {
                            part.diagnostics.unnamed += 1
                            part.filenames.append([])
                            part.entries.append(ProfileCounters.unknownEntry)
                            continue
                        }
                        part.named += 1
                        let entry = counters.entry(nameRef: header.nameRef, funcHash: header.funcHash)
                        part.entries.append(entry)
                        // Told by the entry itself (a slice of the counters, to switch on, retained and
                        // released the pool every core reads).
                        if entry == ProfileCounters.mismatchedEntry {
                            part.diagnostics.hashMismatches.append(binary.pgoName(at: i) ?? "")
                            part.filenames.append([])
                            continue
                        }
                        if entry >= 0 { part.diagnostics.profiled += 1 }
                        part.filenames.append(try binary.filenames(at: i, cache: &cache, indices: &indices))
                    }
                } catch {
                    return .failure(NativeFunctionRecords.DecodingFailure(binaryIndex: binary.binaryIndex, error: error))
                }
                return .success(part)
            }
            for result in parts {
                let part = try result.get()
                filenames += part.filenames
                entries += part.entries
                diagnostics.unnamed += part.diagnostics.unnamed
                diagnostics.hashMismatches += part.diagnostics.hashMismatches
                diagnostics.profiled += part.diagnostics.profiled
                named += part.named
            }
        }
        return EncodedFunctionRecords(binaries: binaries, counters: counters.found, starts: starts, filenames: filenames, entries: entries,
                                      diagnostics: diagnostics, namedCount: named)
    }

    /// One chunk's share of `read`.
    private struct Part {
        var filenames: [[String]] = []
        var entries: [Int32] = []
        var diagnostics = NativeRecordDiagnostics()
        var named = 0
    }

    /// All records, named or not.
    package var count: Int { filenames.count }

    /// The binary (its index in `binaries`) and the record within it at `position`.
    func locate(_ position: Int) -> (binary: Int, index: Int) {
        var b = 0
        while starts[b + 1] <= position { b += 1 }
        return (b, position - starts[b])
    }

    /// `body` for each of `positions` (ascending within each binary), with its binary's records and
    /// its index there. The binary's struct is copied once per run of positions in it: copied per
    /// record (`binary!` of an optional), its fields' retains and releases were the largest share
    /// of the atomic reference counting in a 400-file LCOV report (`perf`).
    func forEachRecord(at positions: some Sequence<Int>, _ body: (CoverageMappingRecords, _ position: Int, _ index: Int) throws -> Void) rethrows {
        var iterator = positions.makeIterator()
        var next = iterator.next()
        while let first = next {
            let b = locate(first).binary
            let binary = binaries[b]
            let range = starts[b]..<starts[b + 1]
            next = first
            while let position = next, range.contains(position) {
                try body(binary, position, position - range.lowerBound)
                next = iterator.next()
            }
        }
    }

    /// The name each record at `positions` will carry (a local symbol's file prefix dropped as llvm
    /// drops it), for those that have one, in order.
    func displayNames(of positions: some Sequence<Int>, _ body: (String) -> Void) {
        forEachRecord(at: positions) { binary, position, i in
            if let name = binary.pgoName(at: i) { body(NativeFunctionRecords.displayName(name, firstFilename: filenames[position].first)) }
        }
    }
}

extension NativeFunctionRecords {
    /// The records of `encoded` at `positions` (ascending), evaluated as `build` evaluates them,
    /// duplicates dropped among them: `build` restricted to these records, when every duplicate
    /// of a record is among them too (duplicates name the same files).
    static func build(_ encoded: EncodedFunctionRecords, positions: [Int]) throws -> NativeFunctionRecords {
        try evaluated(parts: [positions.count]) { _, range, chunk in
            var evaluator = CounterEvaluator()
            var filenames = FilenameListCache()
            var scratch = MappingDecoder.Decoded()
            var binaryIndex = 0
            do {
                try encoded.counters.withPool { pool in try encoded.forEachRecord(at: positions[range]) { binary, position, i in
                    binaryIndex = binary.binaryIndex
                    let header = try binary.decodeMapping(at: i, cache: &filenames, scratch: &scratch)
                    let entry = encoded.entries[position]
                    let counts: CounterEvaluator.Counts = entry == ProfileCounters.mismatchedEntry ? .hashMismatch
                        : encoded.counters.span(entry: entry).map { .found(UnsafeBufferPointer(rebasing: pool[$0])) } ?? .unknown
                    chunk.load(pgoName: binary.pgoName(at: i), filenames: header.filenames,
                               expressions: scratch.expressions, regions: scratch.regions, binaryIndex: binaryIndex, position: position,
                               counts: counts, evaluator: &evaluator)
                } }
                return nil
            } catch {
                return DecodingFailure(binaryIndex: binaryIndex, error: error)
            }
        }.get()
    }
}

/// How `NativeRecordSource` reads encoded records by file: the included files in export order, a
/// batch at a time; each record evaluated once, with the batch of the first included file it
/// names (its duplicates name the same files, so they are evaluated with it and dropped as llvm
/// drops them), and let go after the last batch that reads it. Records that name no included file
/// are evaluated afterwards, a chunk at a time, for their diagnostics only.
struct EncodedRecordStream {
    let encoded: EncodedFunctionRecords
    /// Files whose segments are built at once.
    let batchSize: Int

    /// Each included file that a kept record names (in the order `arrange` gives), with its segments
    /// and (`withRecords`) the records of the functions defined in it, through `perFile` on the
    /// worker that built it, to `onBatch` a batch at a time, in order (the batch `inout`, so that
    /// `onBatch` can take its files as their only owner). With `names`, the records'
    /// names are added to it before the first batch (each `FunctionRecord.nameIndex` set). Returns
    /// what evaluation dropped (evaluation errors, dummies, duplicates).
    func files<T>(includeFile: (String) -> Bool, arrange: ([String]) -> [String] = { $0 }, names: DemangleSession? = nil,
                  withRecords: Bool, perFile: (ExportFile, FileRecords) -> T, onBatch: (inout [T]) throws -> Void) throws -> NativeRecordDiagnostics {
        let index = FilenameIndex(lists: encoded.filenames)
        let included = arrange(NativeFileCoverage.uniqueSourceFiles(lists: encoded.filenames).filter(includeFile))
        let batchCount = (included.count + batchSize - 1) / batchSize
        var firstBatch = [Int32](repeating: -1, count: encoded.count)
        var lastBatch = [Int32](repeating: -1, count: encoded.count)
        var homed = [[Int]](repeating: [], count: batchCount)
        // How many included files name each record (2: more than one): a record only one file names
        // is let go by the core that builds that file.
        var namingFiles = [UInt8](repeating: 0, count: encoded.count)
        for (position, filename) in included.enumerated() {
            let batch = Int32(position / batchSize)
            for r in index.records(for: filename) {
                if firstBatch[r] < 0 {
                    firstBatch[r] = batch
                    homed[Int(batch)].append(r)
                }
                lastBatch[r] = batch
                if namingFiles[r] < 2 { namingFiles[r] += 1 }
            }
        }
        // Every name the report may show, added before the first batch is built (a
        // display name depends on the modules of all of them): the records that name an included file.
        var nameIndex = [Int32](repeating: -1, count: names == nil ? 0 : encoded.count)
        if let names {
            // The records whose names the report may show, each given its index now; the names
            // themselves read in one pass (`add(count:names:)`).
            var named: [Int] = []
            encoded.forEachRecord(at: (0..<encoded.count).lazy.filter { firstBatch[$0] >= 0 }) { binary, position, i in
                if binary.hasPGOName(at: i) { named.append(position) }
            }
            let encoded = self.encoded, positions = named
            let first = names.add(count: named.count) { range, body in encoded.displayNames(of: positions[range], body) }
            for (k, r) in named.enumerated() { nameIndex[r] = first + Int32(k) }
        }
        var diagnostics = NativeRecordDiagnostics()
        // The evaluated records still to be read, in slots reused once let go (a dictionary by
        // position cost 9 % more instructions in a text report: hashing, and a copy per lookup).
        var slots: [CountedFunction] = []
        var slotOf = [Int32](repeating: -1, count: encoded.count)
        var free: [Int32] = []
        for batchNumber in 0..<batchCount {
            var result = try NativeFunctionRecords.build(encoded, positions: homed[batchNumber].sorted())
            homed[batchNumber] = []
            Self.add(result.diagnostics, to: &diagnostics)
            var evaluated = result.functions
            result.functions = []  // `evaluated` the only owner: moved out below, not copied
            while let function = evaluated.popLast() {
                let position = function.position
                // Moved, not copied (a copy and the destruction of the original retained and
                // released each record's arrays).
                if let slot = free.popLast() {
                    slots[Int(slot)] = consume function
                    slotOf[position] = slot
                } else {
                    slotOf[position] = Int32(slots.count)
                    slots.append(consume function)
                }
            }
            let batch = included[batchNumber * batchSize..<min((batchNumber + 1) * batchSize, included.count)]
            var built = slots.withUnsafeMutableBufferPointer { all in
                Parallel.map(batch.count) { i -> T? in
                    let filename = batch[batch.startIndex + i]
                    var builder = SegmentBuilder()
                    var fileRecords = FileRecords()
                    var named = false
                    for r in index.records(for: filename) where slotOf[r] >= 0 {
                        let slot = all.baseAddress! + Int(slotOf[r])
                        let nameIndex = nameIndex.isEmpty ? -1 : nameIndex[r]
                        let added: Bool
                        if namingFiles[r] == 1 {
                            // Read for the last time (no other file names it): moved out of its slot and
                            // freed here, on this core, not on the main thread after the batch (20 M
                            // instructions there at 400 files). Read in place instead, each record was
                            // copied for `add` (its name and arrays retained, then released).
                            let function = slot.move()
                            slot.initialize(to: CountedFunction(name: "", filenames: [], regions: [], executionCount: 0))
                            added = function.add(to: &builder, records: &fileRecords, withRecords: withRecords, of: filename,
                                                 order: Int64(r), nameIndex: nameIndex)
                        } else {
                            added = slot.pointee.add(to: &builder, records: &fileRecords, withRecords: withRecords, of: filename,
                                                     order: Int64(r), nameIndex: nameIndex)
                        }
                        if added { named = true }
                    }
                    // llvm lists the files its kept records name: one named only by dropped records is not a file.
                    guard named else { return nil }
                    return perFile(ExportFile(filename: filename, segments: builder.build()), fileRecords)
                }
            }
            for filename in batch {
                for r in index.records(for: filename) where lastBatch[r] == Int32(batchNumber) && slotOf[r] >= 0 {
                    if namingFiles[r] > 1 { slots[Int(slotOf[r])].letGoOfContents() }
                    free.append(slotOf[r])
                    slotOf[r] = -1
                }
            }
            // `built` let go first: `onBatch` is then the files' only owner.
            var files = built.compactMap { $0 }
            built = []
            try onBatch(&files)
        }
        // The rest (test files, typically): evaluated for what they would report, then dropped.
        let rest = (0..<encoded.count).filter { firstBatch[$0] < 0 && !encoded.filenames[$0].isEmpty }
        var start = 0
        while start < rest.count {
            let end = min(start + 4_096, rest.count)
            Self.add(try NativeFunctionRecords.build(encoded, positions: Array(rest[start..<end])).diagnostics, to: &diagnostics)
            start = end
        }
        return diagnostics
    }

    /// What evaluation found; the name and profile checks were counted by `EncodedFunctionRecords.read`.
    private static func add(_ found: NativeRecordDiagnostics, to diagnostics: inout NativeRecordDiagnostics) {
        diagnostics.evaluationErrors += found.evaluationErrors
        diagnostics.zeroRegionDummies += found.zeroRegionDummies
        diagnostics.duplicates += found.duplicates
    }
}
