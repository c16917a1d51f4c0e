import Foundation
import TestscopeExecution

/// How to turn exports into Testscope's coverage model.
package struct CoverageBuildOptions: Sendable {
    package var packageRoot: URL
    package var layout: PackageLayout
    package var filter: SourceFilter
    /// Path prefixes to rewrite in the export before anything else (like llvm-cov's -path-equivalence).
    package var pathEquivalences: [PathEquivalence]
    package var demangler: SwiftDemangler
    package var toolchainDescription: String?
    /// When the coverage data was recorded; sources changed after it get a warning.
    package var dataRecordedAt: Date?
    package var createdAt: Date
    /// False when no output shows function names (the text table): demangling is skipped.
    package var needsFunctionNames = true
    /// False when no diff coverage is asked for: the start line of every counted region
    /// (`FileCoverage.regionStarts`, read only by the diff's classifier) is not collected and sorted
    /// (15 M instructions of a text report at 400 files).
    package var needsRegionStarts = true
    /// How the profile was recorded, as far as known: what the warning about unknown counts names as their cause.
    package var negativeCounts = NegativeCountCause.unknown
    /// A selective run's skipped tests' recorded lines (`run --affected`), added to each file's counts
    /// before anything reads them; nil: the counts are the profiles' alone.
    package var carried: CarriedCoverage?

    package init(packageRoot: URL, layout: PackageLayout, filter: SourceFilter, pathEquivalences: [PathEquivalence] = [],
                demangler: SwiftDemangler = SwiftDemangler(library: nil), toolchainDescription: String? = nil,
                dataRecordedAt: Date? = nil, createdAt: Date = Date()) {
        self.packageRoot = packageRoot
        self.layout = layout
        self.filter = filter
        self.pathEquivalences = pathEquivalences
        self.demangler = demangler
        self.toolchainDescription = toolchainDescription
        self.dataRecordedAt = dataRecordedAt
        self.createdAt = createdAt
    }
}

/// What the model needs from a source file once its lines are computed (the text is not kept:
/// an export can name thousands of files).
struct SourceFacts {
    /// The file's text, kept with the file until its outputs wrote it (each source is read once).
    var text: SourceText
    var lineCount: Int
    var isValidUTF8: Bool
    var excluded: Set<UInt32>
    var unclosedBlockAt: Int?

    init(_ source: SourceText) {
        text = source
        lineCount = source.lineCount
        isValidUTF8 = source.isValidUTF8
        let markers = ExclusionMarkers.excludedLines(in: source)
        excluded = markers.lines
        unclosedBlockAt = markers.unclosedBlockAt
    }
}

/// A `FROM,TO` path prefix rewrite.
public struct PathEquivalence: Sendable, Equatable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    public init(parsing value: String) throws {
        let parts = value.split(separator: ",", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw CoverageError.invalidPathEquivalence(value: value)
        }
        self.init(from: parts[0], to: parts[1])
    }

    public static func apply(_ list: [PathEquivalence], to path: String) -> String {
        for eq in list where path == eq.from || path.hasPrefix(eq.from.hasSuffix("/") ? eq.from : eq.from + "/") {
            let rest = path.dropFirst(eq.from.count)
            let to = eq.to.hasSuffix("/") && rest.hasPrefix("/") ? String(eq.to.dropLast()) : eq.to
            return to + rest
        }
        return path
    }
}

/// Reads one or more llvm-cov exports and builds the coverage model: per-line counts from the
/// file segments, functions from the function records (demangled, closures grouped), filters,
/// exclusion markers and roll-ups.
package struct CoverageBuilder {
    package let options: CoverageBuildOptions

    package init(options: CoverageBuildOptions) { self.options = options }

    /// The model of llvm-cov JSON exports.
    package func build(exports: [URL]) throws -> CoverageModel {
        try build(sources: exports.map { ExportDocument($0) })
    }

    /// The whole model of the records of `sources` (exports, or the native engine's records): every file kept whole.
    package func build(sources: [any CoverageRecordSource]) throws -> CoverageModel {
        var files: [FileCoverage] = []
        let report = try build(sources: sources, onFiles: { files += $0 })
        return CoverageModel(report: report, files: files)
    }

    /// The report of the records of `sources`, streamed: `onFiles` receives the files whole, in the
    /// report's order (by relative path); the report keeps their summaries. The native engine's one
    /// source hands them a batch of files at a time as the records are evaluated, so that a report
    /// can be written file by file; exports and several sources, whose files are complete only at
    /// the end, hand them all at once.
    package func build(sources: [any CoverageRecordSource], onFiles: ([FileCoverage]) throws -> Void) throws -> CoverageReport {
        guard !sources.isEmpty else { throw CoverageError.noInput }
        if sources.count == 1, let native = sources[0] as? NativeRecordSource { return try build(native: native, onFiles: onFiles) }
        // With one source, each file's lines are computed as soon as it is read and its segments
        // dropped; several sources keep segments until all are read, to merge them.
        let single = sources.count == 1
        var segmentsByFile: [String: [[ExportSegment]]] = [:]
        var linesByFile: [String: (lines: LineTable, source: SourceFacts?)] = [:]
        var functionsByFile: [String: FileRecords] = [:]
        let equivalences = options.pathEquivalences
        let filter = CachedSourceFilter(options.filter)
        let session = options.needsFunctionNames ? options.demangler.session() : nil
        // One source: each file's lines (its source read, llvm's line rules) are computed as the
        // files arrive, a batch at a time on every core, and their segments dropped.
        var pending: [(path: String, segments: [ExportSegment])] = []
        func computePending() {
            let batch = pending
            pending = []
            let computed = Parallel.map(batch.count) { Self.lines(batch[$0].path, batch[$0].segments) }
            for (file, result) in zip(batch, computed) { linesByFile[file.path] = result }
        }
        func addFile(_ file: ExportFile, source: any CoverageRecordSource) throws -> String {
            guard let segments = file.segments else { throw CoverageError.summaryOnlyExport(path: source.name) }
            let path = PathEquivalence.apply(equivalences, to: file.filename)
            if single {
                pending.append((path, segments))
                if pending.count >= Self.batchSize { computePending() }
            } else {
                segmentsByFile[path, default: []].append(segments)
            }
            return path
        }
        func addRecords(_ records: FileRecords, path: String, source: Int) {
            var records = records
            for i in records.records.indices {
                records.records[i].order |= Int64(source) << 32
                if let session { records.records[i].nameIndex = session.add(records.records[i].mangledName) }
            }
            if functionsByFile[path] == nil { functionsByFile[path] = records } else { functionsByFile[path]!.append(records) }
        }
        let includeFile = { (name: String) in filter.includes(PathEquivalence.apply(equivalences, to: name)) }
        var sourceWarnings: [Diagnostic] = []
        for (sourceIndex, source) in sources.enumerated() {
            if let native = source as? NativeRecordSource {
                // The native engine hands each file with its functions' records (one source: `build(native:)`).
                let dropped = try native.readByFile(includeFile: includeFile, perFile: { ($0, $1) }, onBatch: { batch in
                    for (file, records) in batch { addRecords(records, path: try addFile(file, source: native), source: sourceIndex) }
                })
                sourceWarnings += dropped.warnings
                continue
            }
            var functionIndex: Int64 = 0
            try source.read(
                includeFile: includeFile,
                onFile: { file in _ = try addFile(file, source: source) },
                onFunction: { function in
                    defer { functionIndex += 1 }
                    guard let file = FunctionRecord.mainFile(of: function, equivalences: equivalences), filter.includes(file) else { return }
                    var records = functionsByFile.removeValue(forKey: file) ?? FileRecords()
                    if var record = FunctionRecord(function, pool: records.pool) {
                        record.order = Int64(sourceIndex) << 32 | functionIndex
                        record.nameIndex = session?.add(record.mangledName) ?? -1
                        records.records.append(record)
                    }
                    functionsByFile[file] = records
                })
        }
        computePending()
        // (Native records: evaluated here, a batch of files at a time, with the segments and lines.)
        PhaseTimer.mark("read export")
        for (path, lists) in segmentsByFile {
            let source = SourceText.read(URL(fileURLWithPath: path, isDirectory: false))
            linesByFile[path] = (LineTable(Self.mergedLines(lists, source: source)), source.map(SourceFacts.init))
        }
        segmentsByFile = [:]
        // The names were added as the records came; they are demangled beside the
        // model building, and the names are filled in afterwards.
        let names = Locked<DemangledNames?>(nil)
        let demangling = session.map { session in BlockingTask { let map = session.finish(); names.withLock { $0 = map } } }
        // The files are built on every core (each with its own records and pool: records of the same
        // symbol merged there), their warnings kept in file order.
        var inputs: [(path: String, lines: LineTable, source: SourceFacts?, records: FileRecords)] = []
        inputs.reserveCapacity(linesByFile.count)
        for path in linesByFile.keys.sorted() {
            let (lines, source) = linesByFile.removeValue(forKey: path)!
            inputs.append((path, lines, source, functionsByFile.removeValue(forKey: path) ?? FileRecords()))
        }
        functionsByFile = [:]
        let built = Parallel.map(inputs.count) { i -> (FileCoverage, [Diagnostic]) in
            var fileWarnings: [Diagnostic] = []
            let input = inputs[i]
            var records = input.records
            records.mergeSameSymbols()
            let file = buildFile(path: input.path, lines: input.lines, source: input.source, records: records.records,
                                 pool: records.pool, warnings: &fileWarnings)
            return (file, fileWarnings)
        }
        inputs = []
        var warnings = sourceWarnings
        var files: [FileCoverage] = []
        files.reserveCapacity(built.count)
        for (file, fileWarnings) in built {
            files.append(file)
            warnings += fileWarnings
        }
        demangling?.wait()
        if let map = names.withLock({ $0 }) { for i in files.indices { Self.rename(&files[i], map) } }
        PhaseTimer.mark("build model")
        files.sort { $0.relativePath < $1.relativePath }
        try onFiles(files)
        let summaries = Self.summarized(&files)
        // The demangler's fallback first; lines of unknown count: one warning for all files, after theirs (`NegativeCountCause`).
        let fallback = (session?.fallbackWarning).map { [$0] } ?? []
        return CoverageReport(files: summaries, metadata: metadata(sources: sources),
                              warnings: fallback + warnings + [options.negativeCounts.warning(for: summaries)].compactMap { $0 })
    }

    /// Where the numbers come from: what every page and file of the report names.
    package func metadata(sources: [any CoverageRecordSource]) -> ReportMetadata {
        var readers: [String] = []
        for source in sources where !readers.contains(source.reader) { readers.append(source.reader) }
        return ReportMetadata(packageRoot: options.packageRoot.path, inputs: sources.flatMap(\.inputs),
                              toolchain: options.toolchainDescription, createdAt: UTCTimestamp.iso8601(options.createdAt),
                              reader: readers.isEmpty ? nil : readers.joined(separator: "; "))
    }

    /// The native engine's one source, streamed: the included files in the report's order, a batch
    /// at a time; each file's lines computed on the worker that built its segments, then the files
    /// built (functions, summary) on every core, their display names filled in, handed to `onFiles`,
    /// and only what it leaves kept. Every name the files may show is demangled from the start (a
    /// display name depends on the modules of all the names); the first batch waits for them. Two
    /// filenames that `--path-equivalence` makes one path are one file, as on the other paths (the
    /// last one's lines, both's records): the last file of a batch waits for the next batch.
    private func build(native: NativeRecordSource, onFiles: ([FileCoverage]) throws -> Void) throws -> CoverageReport {
        let equivalences = options.pathEquivalences
        let filter = CachedSourceFilter(options.filter)
        let session = options.needsFunctionNames ? options.demangler.session() : nil
        let relativePath = { (path: String) in options.filter.relativePath(path) ?? path }
        typealias Read = (path: String, lines: LineTable, source: SourceFacts?, records: FileRecords)
        var names: DemangledNames?
        var files: [FileSummary] = []
        var warnings: [Diagnostic] = []
        var held: Read?
        func build(_ reads: inout [Read]) throws {
            guard !reads.isEmpty else { return }
            if let session, names == nil { names = session.finish() }
            let display = names
            var fileWarnings = [[Diagnostic]](repeating: [], count: reads.count)
            // Each file renamed on the core that built it (on the one thread, 3 % of a JSON report),
            // and its read (records, region pool) freed there: the batch's reads and a copy of each
            // file, freed on the main thread, kept the other core waiting.
            var batch = fileWarnings.withUnsafeMutableBufferPointer { fileWarnings in
                reads.withUnsafeMutableBufferPointer { reads in
                    Parallel.map(reads.count) { i -> FileCoverage in
                        let read = reads[i]
                        reads[i] = ("", LineTable(), nil, FileRecords())
                        var records = read.records
                        records.mergeSameSymbols()
                        var file = buildFile(path: read.path, lines: read.lines, source: read.source, records: records.records,
                                             pool: records.pool, warnings: &fileWarnings[i])
                        if let display { Self.rename(&file, display) }
                        return file
                    }
                }
            }
            reads = []
            for found in fileWarnings { warnings += found }
            try onFiles(batch)
            files += Self.summarized(&batch)
        }
        let dropped = try native.readByFile(
            includeFile: { filter.includes(PathEquivalence.apply(equivalences, to: $0)) },
            arrange: { included in
                included.enumerated().map { (relativePath(PathEquivalence.apply(equivalences, to: $1)), $0, $1) }
                    .sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
            },
            names: session,
            perFile: { file, records -> Read in
                let path = PathEquivalence.apply(equivalences, to: file.filename)
                let (lines, source) = Self.lines(path, file.segments ?? [])
                return (path, lines, source, records)
            },
            onBatch: { batch in
                // Taken from the stream, so that each read's records are owned by `reads` alone
                // and freed on the core that builds the read's file.
                var incoming: [Read] = []
                swap(&incoming, &batch)
                var reads: [Read] = []
                for read in (held.map { [$0] } ?? []) + incoming {
                    if let last = reads.last, last.path == read.path {
                        reads[reads.count - 1].records.append(read.records)
                        (reads[reads.count - 1].lines, reads[reads.count - 1].source) = (read.lines, read.source)
                    } else {
                        reads.append(read)
                    }
                }
                incoming = []
                held = reads.popLast()
                try build(&reads)
            })
        var last = held.map { [$0] } ?? []
        held = nil
        try build(&last)
        // No batch: the session is still ended (its warning, when the library cannot be used).
        if let session, names == nil { _ = session.finish() }
        PhaseTimer.mark("build model")
        let demangling = (session?.fallbackWarning).map { [$0] } ?? []
        return CoverageReport(files: files, metadata: metadata(sources: [native]),
                              warnings: demangling + dropped.warnings + warnings + [options.negativeCounts.warning(for: files)].compactMap { $0 })
    }

    /// The files' summaries, each made on a core that then frees the file's lines and functions there
    /// (freed on the main thread, they kept the other core waiting).
    private static func summarized(_ files: inout [FileCoverage]) -> [FileSummary] {
        let summaries = files.withUnsafeMutableBufferPointer { files in
            Parallel.map(files.count) { i -> FileSummary in
                let summary = files[i].summarized
                (files[i].lines, files[i].functions, files[i].regionStarts, files[i].source) = (LineTable(), [], [], nil)
                return summary
            }
        }
        files = []
        return summaries
    }

    /// Fills in the display names of a file's functions and closures.
    private static func rename(_ file: inout FileCoverage, _ map: DemangledNames) {
        func rename(_ f: inout FunctionCoverage) {
            f.name = map.displayName(at: f.nameIndex, mangled: f.mangledName)
            f.nameIndex = -1
            for i in f.closures.indices { rename(&f.closures[i]) }
        }
        for k in file.functions.indices { rename(&file.functions[k]) }
    }

    /// Files whose lines are computed at once (their segments held meanwhile).
    static let batchSize = 32

    /// A file's lines by llvm's rules, its source read (for the partial lines and the exclusion markers).
    private static func lines(_ path: String, _ segments: [ExportSegment]) -> (LineTable, SourceFacts?) {
        let source = SourceText.read(URL(fileURLWithPath: path, isDirectory: false))
        return (LineCoverageBuilder.table(from: segments, source: source), source.map(SourceFacts.init))
    }

    private func buildFile(path: String, lines computed: LineTable, source: SourceFacts?, records: [FunctionRecord], pool: RegionPool,
                           warnings: inout [Diagnostic]) -> FileCoverage {
        let relative = options.filter.relativePath(path) ?? path
        if source == nil {
            warnings.append(.warning(file: relative, "source file not found (deleted or moved since the run); reporting counts without source text"))
        } else if let source, !source.isValidUTF8 {
            warnings.append(.warning(file: relative, "source is not valid UTF-8; shown with replacement characters"))
        }
        if source != nil, let recorded = options.dataRecordedAt,
           let modified = InputFile.modificationDate(path),
           modified.timeIntervalSince(recorded) > 1 {
            warnings.append(.warning(file: relative, "changed after the coverage data was recorded; line numbers may not match (re-run the tests)"))
        }
        var lines = computed
        if let source, let last = lines.last, Int(last.line) > source.lineCount {
            warnings.append(.warning(file: relative, "has \(source.lineCount) lines but the coverage data reaches line \(last.line); the file changed since the run"))
        }
        var excluded = Set<UInt32>()
        if let source {
            excluded = source.excluded
            if let open = source.unclosedBlockAt {
                warnings.append(.warning(file: relative, line: Int(open), "testscope:ignore:start has no matching testscope:ignore:end; excluding to the end of the file"))
            }
        }
        var excludedExecutable: [UInt32] = []
        if !excluded.isEmpty {
            excludedExecutable = lines.indices.map { lines.lineNumber(at: $0) }.filter { excluded.contains($0) }
            if !excludedExecutable.isEmpty { lines = lines.removing(excluded) }
        }
        // Before the functions' line ratios and the summary: every output reads the carried lines alike.
        var carriedLines = 0, records = records
        if let carried = options.carried {
            (lines, carriedLines) = carried.apply(to: lines, relativePath: relative)
            carried.apply(to: &records, pool: pool, relativePath: relative)
        }
        let (functions, regionStarts) = FunctionGrouper(records: records, pool: pool, excluded: excluded, lines: lines,
                                                        keepsRegionStarts: options.needsRegionStarts).functionsAndRegions()
        var summary = CoverageSummary()
        summary.lines = CoverageRatio(covered: lines.indices.reduce(0) {
            let count = lines.count(at: $1)
            return $0 + (count > 0 && count != LineCoverage.unreliableCount ? 1 : 0)
        }, total: lines.count)
        for function in functions {
            summary.functions += CoverageRatio(covered: function.isCovered ? 1 : 0, total: 1)
            summary.regions += function.regions
            summary.instantiations += function.instantiations
        }
        return FileCoverage(
            path: path, relativePath: relative, target: options.layout.target(for: relative),
            lines: lines, excludedLines: excludedExecutable, functions: functions, summary: summary,
            sourceAvailable: source != nil, regionStarts: regionStarts, source: source?.text, carriedLines: carriedLines)
    }

    /// One export: llvm's rules on its segments. Several: segments summed where their structure is
    /// identical (what `llvm-profdata merge` would give); otherwise line counts are summed.
    static func mergedLines(_ lists: [[ExportSegment]], source: SourceText?) -> [LineCoverage] {
        guard var merged = lists.first else { return [] }
        var structural = true
        for other in lists.dropFirst() {
            guard other.count == merged.count,
                  zip(other, merged).allSatisfy({ $0.line == $1.line && $0.column == $1.column
                      && $0.hasCount == $1.hasCount && $0.isRegionEntry == $1.isRegionEntry })
            else { structural = false; break }
            for i in merged.indices {
                merged[i].count = merged[i].count.addingReportingOverflow(other[i].count).overflow
                    ? .max : merged[i].count + other[i].count
            }
        }
        if structural { return LineCoverageBuilder.lines(from: merged, source: source) }
        var byLine: [UInt32: LineCoverage] = [:]
        for list in lists {
            for record in LineCoverageBuilder.lines(from: list, source: source) {
                if var existing = byLine[record.line] {
                    let (sum, overflow) = existing.count.addingReportingOverflow(record.count)
                    existing.count = overflow ? .max : sum
                    existing.uncoveredSpans = existing.uncoveredSpans.filter { record.uncoveredSpans.contains($0) }
                    byLine[record.line] = existing
                } else {
                    byLine[record.line] = record
                }
            }
        }
        return byLine.values.sorted { $0.line < $1.line }
    }
}
