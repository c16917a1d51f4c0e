import TestscopeExecution

// The stale-profile check where binary IDs cannot tell (Darwin's raw profiles have none, nor has an
// ELF binary linked without a build ID): each function's counter count in the profile against the
// binary's own (`__llvm_prf_data`), else against the highest counter its mapping uses.

extension CoverageMappingRecords {
    /// A function the profile counts with another number of counters than this build has: `profile`
    /// counters there, `binary` here (exactly, from `__llvm_prf_data`; else at least, from the mapping).
    package struct CounterDisagreement: Sendable, Equatable {
        package var name: String
        package var profile: Int
        package var binary: Int
    }

    /// The functions whose counters in `counters` one build of this binary cannot have written.
    /// Where the binary has `__llvm_prf_data` (`binaryCounts`, from `counterCounts(binaryAt:)`), a
    /// profile of this build has exactly its counter count for each function (name and hash) it has;
    /// otherwise (each mapping decoded: the slow way) at least one counter past the highest the
    /// function's mapping refers to (llvm-cov would drop the function without a word).
    ///
    /// What cannot be detected: a function whose body changed but kept its number of counters (Swift's
    /// function hashes are 0, so its name and hash still match: its counts land on the new regions);
    /// functions only one of the two builds has (added, removed or renamed: an added one counts as
    /// never run, as in llvm-cov); and, without `__llvm_prf_data`, a profile with more counters for a
    /// function than its mapping uses.
    package func counterDisagreements(with counters: ProfileCounters, binaryCounts counterCounts: [FunctionCounterCount]?) -> [CounterDisagreement] {
        var found: [(nameRef: UInt64, profile: Int, binary: Int)] = []
        if let counterCounts {
            for function in counterCounts {
                guard case .found(let counts) = counters.counters(nameRef: function.nameRef, funcHash: function.funcHash),
                      counts.count != Int(function.count) else { continue }
                found.append((function.nameRef, counts.count, Int(function.count)))
            }
        } else {
            var cache = FilenameListCache()
            var scratch = MappingDecoder.Decoded()
            for i in 0..<count {
                let header = header(at: i)
                // A mapping that does not decode is reported with the binary's name when it is evaluated.
                guard case .found(let counts) = counters.counters(nameRef: header.nameRef, funcHash: header.funcHash),
                      (try? decodeMapping(at: i, cache: &cache, scratch: &scratch)) != nil,
                      scratch.counterCount > counts.count else { continue }
                found.append((header.nameRef, counts.count, scratch.counterCount))
            }
        }
        guard !found.isEmpty else { return [] }
        var names: [UInt64: String] = [:]
        for record in records where record.hasName { names[record.nameRef] = name(of: record) }
        return found.map { CounterDisagreement(name: names[$0.nameRef] ?? "0x" + String($0.nameRef, radix: 16), profile: $0.profile, binary: $0.binary) }
    }
}

extension CoverageMappingReader {
    /// The counter count of each instrumented function of the binary at `path` (`records(binaryAt:)`'s
    /// slice), from its `__llvm_prf_data`: what a profile of this build has. Nil when it has none that
    /// reads as this LLVM's. Read only when the binary IDs cannot tell a profile of another build.
    package static func counterCounts(binaryAt path: String, architecture: String? = nil) -> [FunctionCounterCount]? {
        (try? ELFFile(path: path, architecture: architecture)).flatMap(counterCounts)
    }

    /// Each `__llvm_prf_data` record's NameRef, FuncHash and NumCounters (the layout of a raw
    /// profile's data records, `RawProfileReader.dataRecordSize` bytes each; an object may have one
    /// section per comdat). Nil without such a section, or when its records do not read as this
    /// LLVM's (their counters must fit in `__llvm_prf_cnts`): another layout is not guessed at, and a
    /// damaged section only turns the check to the mapping's counters (`counterDisagreements`).
    static func counterCounts(_ elf: ELFFile) -> [FunctionCounterCount]? {
        let sections = elf.sections.filter { $0.name == "__llvm_prf_data" }
        let size = RawProfileReader.dataRecordSize
        // Every counter of every record must fit in the counters sections (a count read from another
        // layout, or from a damaged file, would not): compared as counters, so that no sum overflows.
        let counterSpace = elf.sections.filter { $0.name == "__llvm_prf_cnts" }.reduce(UInt64(0)) { sum, section in
            let (space, overflow) = sum.addingReportingOverflow(section.size / 8)
            return overflow ? .max : space
        }
        guard !sections.isEmpty, sections.allSatisfy({ $0.size % UInt64(size) == 0 && !$0.isCompressed }) else { return nil }
        guard let bytes = try? elf.bytes(of: sections, aligningEachTo: 8) else { return nil }
        var reader = ByteReader(bytes, context: "__llvm_prf_data")
        var counts: [FunctionCounterCount] = []
        counts.reserveCapacity(bytes.count / size)
        var total: UInt64 = 0
        do {
            while !reader.isAtEnd {
                let nameRef = try reader.u64("NameRef")
                let funcHash = try reader.u64("FuncHash")
                try reader.skip(32, "CounterPtr, BitmapPtr, FunctionPointer, Values")
                let count = try reader.u32("NumCounters")
                try reader.skip(size - 52, "NumValueSites, NumBitmapBytes")
                total += UInt64(count)  // at most 2^32 a record, and fewer records than 2^32: no overflow
                guard count > 0, total <= counterSpace else { return nil }
                counts.append(FunctionCounterCount(nameRef: nameRef, funcHash: funcHash, count: count))
            }
        } catch {
            return nil
        }
        return counts
    }
}
