/// The values the native coverage readers hand to the coverage model: what the test binary's
/// coverage mapping says about each function (`MappedFunction`) and what the profiles counted
/// (`ProfileCounters`). Field meanings follow llvm's `CoverageMapping.h` and `InstrProf.h`.

/// What a mapping region counts with (`llvm::coverage::Counter`): nothing, a profile counter of
/// the function, or an expression of the function (`a - b` or `a + b`).
package enum MappingCounter: Sendable, Equatable, Hashable {
    case zero
    /// Index into the function's profile counters.
    case counter(UInt32)
    /// Index into the function's expressions, evaluated as lhs − rhs.
    case subtract(UInt32)
    /// Index into the function's expressions, evaluated as lhs + rhs.
    case add(UInt32)
}

/// One expression of a function's mapping; its kind comes from the counter that refers to it.
package struct MappingExpression: Sendable, Equatable {
    package var lhs: MappingCounter
    package var rhs: MappingCounter

    package init(lhs: MappingCounter, rhs: MappingCounter) {
        self.lhs = lhs
        self.rhs = rhs
    }
}

/// The kind of a mapping region (`CounterMappingRegion::RegionKind`), as llvm-cov export numbers them.
package enum MappingRegionKind: UInt8, Sendable {
    case code = 0, expansion = 1, skipped = 2, gap = 3, branch = 4, mcdcDecision = 5, mcdcBranch = 6
}

/// One decoded region of a function's mapping, in mapping order (file 0's regions, then file 1's, …).
package struct MappingRegion: Sendable, Equatable {
    package var kind: MappingRegionKind
    /// The region's counter; for an expansion, the counter of the first region of the file it expands.
    package var counter: MappingCounter
    /// Branch regions: the false counter (`.zero` otherwise).
    package var falseCounter: MappingCounter
    /// Index into the function's `filenames`.
    package var fileID: UInt32
    /// Expansion regions: the file id expanded here (0 otherwise).
    package var expandedFileID: UInt32
    package var lineStart: UInt32
    package var columnStart: UInt32
    package var lineEnd: UInt32
    /// Gap bit already cleared; a whole-line region has columns 1 … 4294967295, as llvm decodes it.
    package var columnEnd: UInt32

    package init(kind: MappingRegionKind, counter: MappingCounter, falseCounter: MappingCounter = .zero,
                fileID: UInt32 = 0, expandedFileID: UInt32 = 0,
                lineStart: UInt32, columnStart: UInt32, lineEnd: UInt32, columnEnd: UInt32) {
        self.kind = kind
        self.counter = counter
        self.falseCounter = falseCounter
        self.fileID = fileID
        self.expandedFileID = expandedFileID
        self.lineStart = lineStart
        self.columnStart = columnStart
        self.lineEnd = lineEnd
        self.columnEnd = columnEnd
    }
}

/// One function record of a binary's coverage mapping (`__llvm_covfun`), decoded, in covfun order.
package struct MappedFunction: Sendable {
    /// Low 64 bits of MD5(PGO name): the key shared with the profiles.
    package var nameRef: UInt64
    /// The PGO name (`[<path>:]<mangled symbol>`) from the names section, or nil when it has none.
    package var pgoName: String?
    /// Swift writes 0.
    package var funcHash: UInt64
    /// The function's file-id map resolved to absolute paths (relative names joined to the
    /// compilation directory, as llvm does); may repeat a name.
    package var filenames: [String]
    package var expressions: [MappingExpression]
    package var regions: [MappingRegion]
    /// Which of the binaries (in the order they were given) it came from.
    package var binaryIndex: Int

    package init(nameRef: UInt64, pgoName: String?, funcHash: UInt64, filenames: [String],
                expressions: [MappingExpression], regions: [MappingRegion], binaryIndex: Int = 0) {
        self.nameRef = nameRef
        self.pgoName = pgoName
        self.funcHash = funcHash
        self.filenames = filenames
        self.expressions = expressions
        self.regions = regions
        self.binaryIndex = binaryIndex
    }
}

/// How many counters an instrumented function of a binary has (its `__llvm_prf_data` record).
package struct FunctionCounterCount: Sendable, Equatable {
    package var nameRef: UInt64
    package var funcHash: UInt64
    package var count: UInt32
}

/// The counters of every function in one or more profiles, summed as `llvm-profdata merge` does
/// (per name and hash, saturating; a record whose counter count differs from the first is ignored).
///
/// Stored flat — one index by NameRef, one array of entries, one pool of counts — rather than as a
/// dictionary of dictionaries of arrays: at 800 files (70,874 functions) the nested form was three
/// allocations per function, about 16 MB of a report's peak.
package struct ProfileCounters: Sendable {
    /// What a lookup found (`IndexedInstrProfReader::getInstrProfRecord`'s three outcomes).
    package enum Lookup: Sendable, Equatable {
        case found(ArraySlice<UInt64>)
        /// The name is in the profile, but not with this hash: llvm-cov drops the function.
        case hashMismatch
        /// The name is not in the profile: llvm-cov counts the function as all zeros.
        case unknown
    }

    /// What adding one record did.
    package enum Addition: Sendable, Equatable {
        case inserted
        /// Summed into the record already there; `saturated` additions stopped at UInt64.max.
        case summed(saturated: Int)
        /// Ignored: the record already there has `expected` counters.
        case countMismatch(expected: Int)
    }

    struct Entry: Sendable {
        var funcHash: UInt64
        var start: Int
        var count: Int32
        /// The next entry of the same NameRef (another hash), or -1.
        var next: Int32
    }

    /// NameRef → its first entry.
    private var index = UInt64Index()
    private var entries: [Entry] = []
    private var pool: [UInt64] = []
    /// The binary IDs (GNU build IDs) the profiles recorded, lower-case hex.
    package var binaryIDs: Set<String>

    /// nameRef → (funcHash → counters) (tests and small tables).
    package init(functions: [UInt64: [UInt64: [UInt64]]] = [:], binaryIDs: Set<String> = []) {
        self.binaryIDs = binaryIDs
        for nameRef in functions.keys.sorted() {
            for (hash, counts) in functions[nameRef]!.sorted(by: { $0.key < $1.key }) {
                _ = add(nameRef: nameRef, funcHash: hash, counters: counts)
            }
        }
    }

    /// No function has counters.
    package var isEmpty: Bool { entries.isEmpty }

    /// nameRef → (funcHash → counters), rebuilt (for tests and merging; lookups use `counters`).
    package var functions: [UInt64: [UInt64: [UInt64]]] {
        var result: [UInt64: [UInt64: [UInt64]]] = [:]
        index.forEach { nameRef, first in
            var e = first
            while e >= 0 {
                let entry = entries[Int(e)]
                result[nameRef, default: [:]][entry.funcHash] = Array(pool[entry.start..<entry.start + Int(entry.count)])
                e = entry.next
            }
        }
        return result
    }

    package func counters(nameRef: UInt64, funcHash: UInt64) -> Lookup {
        lookup(entry: entry(nameRef: nameRef, funcHash: funcHash))
    }

    /// `entry(nameRef:funcHash:)` when the name is not in the profile.
    package static let unknownEntry: Int32 = -1
    /// `entry(nameRef:funcHash:)` when the name is in the profile with other hashes only.
    package static let mismatchedEntry: Int32 = -2

    /// Where the counters of (nameRef, funcHash) are, to be kept and looked at again with
    /// `lookup(entry:)`: the hash table is found once per record, not once for each step that needs
    /// it (its lookups are cache misses; two per record were 4.8 % of a text report's time at 400 files).
    package func entry(nameRef: UInt64, funcHash: UInt64) -> Int32 {
        guard let first = index[nameRef] else { return Self.unknownEntry }
        guard let e = entry(first, funcHash) else { return Self.mismatchedEntry }
        return Int32(e)
    }

    /// What `entry(nameRef:funcHash:)` found.
    package func lookup(entry e: Int32) -> Lookup { Self.lookup(entry: e, entries, pool) }

    fileprivate static func lookup(entry e: Int32, _ entries: [Entry], _ pool: [UInt64]) -> Lookup {
        guard e >= 0 else { return e == mismatchedEntry ? .hashMismatch : .unknown }
        let entry = entries[Int(e)]
        return .found(pool[entry.start..<entry.start + Int(entry.count)])
    }

    /// The counters without the index by NameRef, for records whose entries were found already:
    /// the index is let go once they are (0.85 MB at 400 files, held for the whole report before).
    package var found: Found { Found(entries: entries, pool: pool) }

    /// `ProfileCounters` reduced to `lookup(entry:)`.
    package struct Found: Sendable {
        fileprivate let entries: [Entry]
        fileprivate let pool: [UInt64]

        /// What `ProfileCounters.entry(nameRef:funcHash:)` found.
        package func lookup(entry e: Int32) -> Lookup { ProfileCounters.lookup(entry: e, entries, pool) }

        /// Where entry `e`'s counters are in the buffer `withPool` gives (nil when `e` is not an
        /// entry): for evaluators reading many records' counters in place. A slice of the pool per
        /// record retained and released the one pool every core reads (`lookup`).
        package func span(entry e: Int32) -> Range<Int>? {
            guard e >= 0 else { return nil }
            let entry = entries[Int(e)]
            return entry.start..<entry.start + Int(entry.count)
        }

        /// `body` given every entry's counters, in place (`span(entry:)`).
        package func withPool<R>(_ body: (UnsafeBufferPointer<UInt64>) throws -> R) rethrows -> R {
            try pool.withUnsafeBufferPointer(body)
        }
    }

    /// Whether `reserve(upTo:)` sized the arrays: their capacity past the count was never written.
    private var reservedUpFront = false

    /// Room for the counters of a profile file of `fileSize` bytes, which holds at most one counter
    /// per 8 bytes and one function per 24: reserved, never written past what is added (so not
    /// resident), and never copied while the profile is read (grown by doubling, the arrays were
    /// copied twice and trimmed once more, 5 MB at the peak of reading at 800 files).
    mutating func reserve(upTo fileSize: Int) {
        guard entries.isEmpty, fileSize > 0 else { return }
        pool.reserveCapacity(fileSize / 8)
        entries.reserveCapacity(fileSize / 24)
        reservedUpFront = true
    }

    /// An index sized for `names` NameRefs before any is added (an indexed profile says how many it
    /// holds). Grown by doubling, then made again by `compact()`, the index of a 400-file package's
    /// profile was 2.4 MB at once (the old and new tables of the last growth) while the profile was
    /// read; the peak of reading did not change measurably (it moves more from run to run).
    mutating func reserve(names: Int) {
        guard entries.isEmpty, names > 0 else { return }
        index = UInt64Index(minimumCapacity: names)
    }

    /// The same counters in storage of their own size (the index made again for its count unless it
    /// has that size, the arrays trimmed unless reserved): they are held until every record is
    /// evaluated, the peak (2.5 MB at 800 files).
    mutating func compact() {
        if !index.isSized(for: index.count) {
            var exact = UInt64Index(minimumCapacity: index.count)
            index.forEach { exact[$0] = $1 }
            index = exact
        }
        guard !reservedUpFront else { return }
        entries = entries.trimmed()
        pool = pool.trimmed()
    }

    /// `InstrProfWriter::addRecord` for one record: a new (name, hash) is stored; a known one with
    /// the same number of counters is summed element-wise, saturating; another number is ignored.
    package mutating func add(nameRef: UInt64, funcHash: UInt64, counters new: some Collection<UInt64>) -> Addition {
        let first = index[nameRef]
        if let first, let e = entry(first, funcHash) {
            let entry = entries[e]
            guard Int(entry.count) == new.count else { return .countMismatch(expected: Int(entry.count)) }
            var saturated = 0
            var slot = entry.start
            for value in new {
                let (sum, overflow) = pool[slot].addingReportingOverflow(value)
                if overflow { saturated += 1 }
                pool[slot] = overflow ? UInt64.max : sum
                slot += 1
            }
            return .summed(saturated: saturated)
        }
        index[nameRef] = Int32(entries.count)
        entries.append(Entry(funcHash: funcHash, start: pool.count, count: Int32(new.count), next: first ?? -1))
        pool.append(contentsOf: new)
        return .inserted
    }

    /// Every record, in the order it was first added.
    package func forEach(_ body: (_ nameRef: UInt64, _ funcHash: UInt64, _ counts: ArraySlice<UInt64>) -> Void) {
        // Entries do not record their NameRef (the index does): recovered once, for this rare walk.
        var nameRefs = [UInt64](repeating: 0, count: entries.count)
        index.forEach { nameRef, first in
            var e = first
            while e >= 0 {
                nameRefs[Int(e)] = nameRef
                e = entries[Int(e)].next
            }
        }
        for (e, entry) in entries.enumerated() {
            body(nameRefs[e], entry.funcHash, pool[entry.start..<entry.start + Int(entry.count)])
        }
    }

    private func entry(_ first: Int32, _ funcHash: UInt64) -> Int? {
        var e = first
        while e >= 0 {
            if entries[Int(e)].funcHash == funcHash { return Int(e) }
            e = entries[Int(e)].next
        }
        return nil
    }
}
