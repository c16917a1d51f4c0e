/// A segment of llvm-cov's per-file view, read from the positional array
/// `[line, column, count, hasCount, isRegionEntry, isGapRegion]` (the last element is absent in
/// 2.0.0 exports; unknown trailing elements are ignored).
package struct ExportSegment: Equatable, Sendable {
    package var line: UInt32
    package var column: UInt32
    package var count: UInt64
    private var flags: UInt8

    package init(line: UInt32, column: UInt32, count: UInt64, hasCount: Bool, isRegionEntry: Bool, isGapRegion: Bool) {
        self.line = line
        self.column = column
        self.count = count
        self.flags = (hasCount ? 1 : 0) | (isRegionEntry ? 2 : 0) | (isGapRegion ? 4 : 0)
    }

    /// False for skipped (uninstrumented) code and for the end of the last region.
    package var hasCount: Bool { flags & 1 != 0 }
    /// True where a region starts (not where an enclosing region resumes).
    package var isRegionEntry: Bool { flags & 2 != 0 }
    package var isGapRegion: Bool { flags & 4 != 0 }
    /// llvm's `isStartOfRegion`: a counted, non-gap region entry.
    package var startsCountedRegion: Bool { flags & 7 == 3 }
}

/// The kind of a mapping region (`CounterMappingRegion::RegionKind`).
package enum RegionKind: UInt8, Sendable {
    case code = 0, expansion = 1, skipped = 2, gap = 3, branch = 4, mcdcDecision = 5, mcdcBranch = 6
    case unknown = 255
}

/// A function's mapping region, read from
/// `[lineStart, columnStart, lineEnd, columnEnd, executionCount, fileID, expandedFileID, kind]`.
package struct ExportRegion: Equatable, Sendable {
    package var lineStart: UInt32
    package var columnStart: UInt32
    package var lineEnd: UInt32
    package var columnEnd: UInt32
    package var executionCount: UInt64
    package var fileID: UInt32
    package var expandedFileID: UInt32
    package var kind: RegionKind

    package init(lineStart: UInt32, columnStart: UInt32, lineEnd: UInt32, columnEnd: UInt32,
                executionCount: UInt64, fileID: UInt32 = 0, expandedFileID: UInt32 = 0, kind: RegionKind = .code) {
        self.lineStart = lineStart
        self.columnStart = columnStart
        self.lineEnd = lineEnd
        // Gap regions carry bit 31 in their end column inside llvm; mask it if it leaks out.
        self.columnEnd = columnEnd & 0x7FFF_FFFF
        self.executionCount = executionCount
        self.fileID = fileID
        self.expandedFileID = expandedFileID
        self.kind = kind
    }
}

/// One function record of an export (`data[].functions[]`); names are still mangled.
package struct ExportFunction: Sendable {
    package var name: String
    package var count: UInt64
    package var regions: [ExportRegion]
    package var filenames: [String]

    package init(name: String, count: UInt64, regions: [ExportRegion], filenames: [String]) {
        self.name = name
        self.count = count
        self.regions = regions
        self.filenames = filenames
    }

    /// llvm's `findMainViewFileID`: the first file id that is not the target of an expansion.
    package var mainFileID: Int? {
        Self.mainFileID(filenameCount: filenames.count,
                        expandedFileIDs: regions.lazy.filter { $0.kind == .expansion }.map(\.expandedFileID))
    }

    /// `findMainViewFileID` over any record's file count and expansion targets (also `CountedFunction`'s).
    static func mainFileID<S: Sequence<UInt32>>(filenameCount: Int, expandedFileIDs: S) -> Int? {
        guard filenameCount > 0 else { return nil }
        var expanded = Set<UInt32>()
        for id in expandedFileIDs { expanded.insert(id) }
        for id in 0..<filenameCount where !expanded.contains(UInt32(id)) { return id }
        return nil
    }

    /// The file the function is defined in.
    package var mainFilename: String? { mainFileID.map { filenames[$0] } }
}

/// One file of an export (`data[].files[]`); `segments` is nil in a summary-only export.
package struct ExportFile: Sendable {
    package var filename: String
    package var segments: [ExportSegment]?

    package init(filename: String, segments: [ExportSegment]?) {
        self.filename = filename
        self.segments = segments
    }
}

/// The envelope fields of an export.
package struct ExportHeader: Sendable, Equatable {
    /// The `type` every llvm-cov export carries.
    package static let exportType = "llvm.coverage.json.export"

    package var type: String?
    package var version: String?
    /// Whether the document had a `data` array (an export of no binary has none).
    package var hasData = false

    /// Throws unless this is an llvm-cov export with data.
    func validate(path: String) throws {
        guard type == Self.exportType else { throw CoverageError.notAnExport(path: path, type: type) }
        guard hasData else { throw CoverageError.exportWithoutData(path: path) }
    }
}
