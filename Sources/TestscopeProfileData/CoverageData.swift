/// The values the native coverage readers hand to the coverage model: what the test binary's
/// coverage mapping says about each function (`MappedFunction`) and what the profiles counted
/// (`ProfileCounters`). Field meanings follow llvm's `CoverageMapping.h` and `InstrProf.h`.

/// What a mapping region counts with (`llvm::coverage::Counter`): nothing, a profile counter of
/// the function, or an expression of the function (`a - b` or `a + b`).
public enum MappingCounter: Sendable, Equatable, Hashable {
    case zero
    /// Index into the function's profile counters.
    case counter(UInt32)
    /// Index into the function's expressions, evaluated as lhs − rhs.
    case subtract(UInt32)
    /// Index into the function's expressions, evaluated as lhs + rhs.
    case add(UInt32)
}

/// One expression of a function's mapping; its kind comes from the counter that refers to it.
public struct MappingExpression: Sendable, Equatable {
    public var lhs: MappingCounter
    public var rhs: MappingCounter

    public init(lhs: MappingCounter, rhs: MappingCounter) {
        self.lhs = lhs
        self.rhs = rhs
    }
}

/// The kind of a mapping region (`CounterMappingRegion::RegionKind`), as llvm-cov export numbers them.
public enum MappingRegionKind: UInt8, Sendable {
    case code = 0, expansion = 1, skipped = 2, gap = 3, branch = 4, mcdcDecision = 5, mcdcBranch = 6
}

/// One decoded region of a function's mapping, in mapping order (file 0's regions, then file 1's, …).
public struct MappingRegion: Sendable, Equatable {
    public var kind: MappingRegionKind
    /// The region's counter; for an expansion, the counter of the first region of the file it expands.
    public var counter: MappingCounter
    /// Branch regions: the false counter (`.zero` otherwise).
    public var falseCounter: MappingCounter
    /// Index into the function's `filenames`.
    public var fileID: UInt32
    /// Expansion regions: the file id expanded here (0 otherwise).
    public var expandedFileID: UInt32
    public var lineStart: UInt32
    public var columnStart: UInt32
    public var lineEnd: UInt32
    /// Gap bit already cleared; a whole-line region has columns 1 … 4294967295, as llvm decodes it.
    public var columnEnd: UInt32

    public init(kind: MappingRegionKind, counter: MappingCounter, falseCounter: MappingCounter = .zero,
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
public struct MappedFunction: Sendable {
    /// Low 64 bits of MD5(PGO name): the key shared with the profiles.
    public var nameRef: UInt64
    /// The PGO name (`[<path>:]<mangled symbol>`) from the names section, or nil when it has none.
    public var pgoName: String?
    /// Swift writes 0.
    public var funcHash: UInt64
    /// The function's file-id map resolved to absolute paths (relative names joined to the
    /// compilation directory, as llvm does); may repeat a name.
    public var filenames: [String]
    public var expressions: [MappingExpression]
    public var regions: [MappingRegion]
    /// Which of the binaries (in the order they were given) it came from.
    public var binaryIndex: Int

    public init(nameRef: UInt64, pgoName: String?, funcHash: UInt64, filenames: [String],
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

/// The counters of every function in one or more profiles, summed as `llvm-profdata merge` does
/// (per name and hash, saturating; a record whose counter count differs from the first is ignored).
public struct ProfileCounters: Sendable {
    /// What a lookup found (`IndexedInstrProfReader::getInstrProfRecord`'s three outcomes).
    public enum Lookup: Sendable, Equatable {
        case found([UInt64])
        /// The name is in the profile, but not with this hash: llvm-cov drops the function.
        case hashMismatch
        /// The name is not in the profile: llvm-cov counts the function as all zeros.
        case unknown
    }

    /// nameRef → (funcHash → counters).
    public var functions: [UInt64: [UInt64: [UInt64]]]
    /// The binary IDs (GNU build IDs) the profiles recorded, lower-case hex.
    public var binaryIDs: Set<String>

    public init(functions: [UInt64: [UInt64: [UInt64]]] = [:], binaryIDs: Set<String> = []) {
        self.functions = functions
        self.binaryIDs = binaryIDs
    }

    public func counters(nameRef: UInt64, funcHash: UInt64) -> Lookup {
        guard let byHash = functions[nameRef] else { return .unknown }
        return byHash[funcHash].map(Lookup.found) ?? .hashMismatch
    }
}
