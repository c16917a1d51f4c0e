import TestscopeExecution

/// A covered/total pair; `percent` is nil for 0/0, which reports show as "–", never as 0 %.
public struct CoverageRatio: Equatable, Sendable {
    public var covered: Int
    public var total: Int

    public init(covered: Int = 0, total: Int = 0) {
        self.covered = covered
        self.total = total
    }

    public var missed: Int { total - covered }
    public var percent: Double? { total == 0 ? nil : Double(covered) * 100 / Double(total) }

    public static func + (a: CoverageRatio, b: CoverageRatio) -> CoverageRatio {
        CoverageRatio(covered: a.covered + b.covered, total: a.total + b.total)
    }
    public static func += (a: inout CoverageRatio, b: CoverageRatio) { a = a + b }
}

/// The four coverage metrics of a file, directory, target or the whole report.
public struct CoverageSummary: Equatable, Sendable {
    /// Executable lines (llvm-cov show's per-line view) with a count above zero.
    public var lines = CoverageRatio()
    /// Functions, with closures grouped under their enclosing function; covered if it ran.
    public var functions = CoverageRatio()
    /// Code regions of the functions (and their closures); covered if executed.
    public var regions = CoverageRatio()
    /// Compiled function records (generic instantiations counted separately, closures not).
    public var instantiations = CoverageRatio()

    public init() {}

    public static func + (a: CoverageSummary, b: CoverageSummary) -> CoverageSummary {
        var s = CoverageSummary()
        s.lines = a.lines + b.lines
        s.functions = a.functions + b.functions
        s.regions = a.regions + b.regions
        s.instantiations = a.instantiations + b.instantiations
        return s
    }
    public static func += (a: inout CoverageSummary, b: CoverageSummary) { a = a + b }
}

/// A run of columns inside one line that did not execute: `start` inclusive, `end` exclusive,
/// `end == nil` meaning "to the end of the line" (columns are 1-based, as llvm-cov reports them).
package struct ColumnSpan: Equatable, Sendable {
    package var start: UInt32
    package var end: UInt32?
    /// The execution count of the region the span belongs to (0).
    package var count: UInt64

    package init(start: UInt32, end: UInt32?, count: UInt64) {
        self.start = start
        self.end = end
        self.count = count
    }
}

/// One executable line with its execution count, as `llvm-cov show` prints it.
package struct LineCoverage: Equatable, Sendable {
    package var line: UInt32
    package var count: UInt64
    /// Non-empty on a partially covered line: count > 0, but these spans never ran.
    package var uncoveredSpans: [ColumnSpan]

    package init(line: UInt32, count: UInt64, uncoveredSpans: [ColumnSpan] = []) {
        self.line = line
        self.count = count
        self.uncoveredSpans = uncoveredSpans
    }

    /// The count llvm-cov export writes for a counter expression that went negative (`a − b` below
    /// zero: the compiler's mapping, or counters that lost increments in a data race;
    /// `NegativeCountCause`), and the native engine too: the real count is unknown.
    package static let unreliableCount = UInt64(Int64.max)

    /// The count is unknown (a negative counter expression, `NegativeCountCause`): such a line is executable but never counted as covered.
    package var isUnreliable: Bool { count == Self.unreliableCount }
    package var isCovered: Bool { Self.isCovered(count: count) }
    package var isPartial: Bool { isCovered && !uncoveredSpans.isEmpty }

    /// The rule of `isCovered` on a count alone (for readers of a `LineTable` by position).
    @inline(__always)
    package static func isCovered(count: UInt64) -> Bool { count > 0 && count != unreliableCount }
}

/// A code region reduced to its start line and whether it ran (instantiations merged; an unknown count is not covered).
package struct RegionStart: Equatable, Sendable {
    private var bits: UInt32

    package init(line: UInt32, covered: Bool) { bits = min(line, 0x7FFF_FFFF) | (covered ? 0x8000_0000 : 0) }

    package var line: UInt32 { bits & 0x7FFF_FFFF }
    package var covered: Bool { bits & 0x8000_0000 != 0 }
}

/// A source function (closures grouped under it) with its coverage.
package struct FunctionCoverage: Equatable, Sendable {
    /// Demangled, module-free name, e.g. `Calc.add(_:_:) -> Int` or `closure #1 in Calc.run()`.
    package var name: String
    package var mangledName: String
    package var line: UInt32
    package var column: UInt32
    package var endLine: UInt32
    /// Times the function was entered (summed over instantiations).
    package var count: UInt64
    package var lines: CoverageRatio
    package var regions: CoverageRatio
    /// Compiled records for this source function (more than one for some generics).
    package var instantiations: CoverageRatio
    /// Closures and autoclosures defined inside, flattened, in source order.
    package var closures: [FunctionCoverage]
    /// While the model is built: where the display name will be in the demangling session (-1: none).
    var nameIndex: Int32 = -1

    package var isCovered: Bool { count > 0 }
}

/// Everything known about one source file: its lines and functions. The outputs that read files
/// whole get them as the model is built (streamed) or in a `CoverageModel`; the report keeps each
/// file's `summarized` form.
package struct FileCoverage: Equatable, Sendable {
    /// The path as the export names it (after --path-equivalence).
    package var path: String
    /// The path relative to the package root (or the absolute path for files outside it).
    package var relativePath: String
    /// The SwiftPM target (module) the file belongs to, when known.
    package var target: String?
    /// Executable lines that are not excluded by markers, in line order.
    package var lines: LineTable
    /// Lines excluded by `testscope:ignore` markers (only those that were executable).
    package var excludedLines: [UInt32]
    package var functions: [FunctionCoverage]
    package var summary: CoverageSummary
    /// False when the source could not be read (deleted since the run); counts are still known.
    package var sourceAvailable: Bool
    /// Where each region counted in `summary.regions` starts, by line (what diff region coverage needs).
    package var regionStarts: [RegionStart] = []
    /// The source's text as the model read it (nil when it could not be read): the HTML pages and
    /// the diff's classifier read it, not the file again.
    package var source: SourceText? = nil
    /// Lines covered only through a selective run's carried-forward coverage (`CarriedCoverage`).
    package var carriedLines = 0

    /// Ranges of uncovered lines, merged across non-executable gaps like coverage.py does.
    package var missingRanges: [ClosedRange<UInt32>] { ranges { $0 == 0 } }

    /// Ranges of lines whose count is unknown (a negative counter expression), merged the same way.
    package var unreliableRanges: [ClosedRange<UInt32>] { ranges { $0 == LineCoverage.unreliableCount } }

    /// What the report keeps of the file.
    package var summarized: FileSummary {
        FileSummary(path: path, relativePath: relativePath, target: target, summary: summary, excludedLines: excludedLines,
                    sourceAvailable: sourceAvailable, missingRanges: missingRanges, unreliableRanges: unreliableRanges,
                    carriedLines: carriedLines)
    }

    /// Line numbers and counts read by position (iterating built each line's `LineCoverage`, spans
    /// and all: 1.9 % of a text report's instructions, which asks every file for its unreliable ranges).
    private func ranges(where matches: (UInt64) -> Bool) -> [ClosedRange<UInt32>] {
        var ranges: [ClosedRange<UInt32>] = []
        var current: ClosedRange<UInt32>? = nil
        for position in lines.indices {
            let number = lines.lineNumber(at: position)
            if matches(lines.count(at: position)) {
                if let c = current { current = c.lowerBound...number } else { current = number...number }
            } else if let c = current {
                ranges.append(c)
                current = nil
            }
        }
        if let current { ranges.append(current) }
        return ranges
    }
}

/// A file as the report keeps it once its rows are written: what the roll-ups, the text table, the
/// final screen, the gate and the history read. At 1,500 files the lines and functions of every file
/// were 50 MB of the peak, held until the last format was written.
public struct FileSummary: Equatable, Sendable {
    public var path: String
    public var relativePath: String
    public var target: String?
    public var summary: CoverageSummary
    public var excludedLines: [UInt32]
    public var sourceAvailable: Bool
    public var missingRanges: [ClosedRange<UInt32>]
    public var unreliableRanges: [ClosedRange<UInt32>]
    /// Lines covered only through carried-forward coverage (0 without `run --affected`).
    package var carriedLines = 0
}

/// A directory's or target's roll-up.
public struct CoverageGroup: Equatable, Sendable {
    public var name: String
    public var files: Int
    public var summary: CoverageSummary
}

/// Where the numbers came from.
public struct ReportMetadata: Equatable, Sendable {
    public var packageRoot: String
    /// The package's name from its manifest, when known (else reports use the root's folder name).
    public var packageName: String?
    public var inputs: [String]
    public var toolchain: String?
    public var createdAt: String
    /// What read the coverage data: the native engine, or llvm-cov (`CoverageRecordSource.reader`).
    public var reader: String?

    public init(packageRoot: String, inputs: [String], toolchain: String?, createdAt: String, reader: String? = nil) {
        self.packageRoot = packageRoot
        self.inputs = inputs
        self.toolchain = toolchain
        self.createdAt = createdAt
        self.reader = reader
    }
}

/// The coverage report: every file's summary, the roll-ups, where the numbers came from; what
/// every output reads once the model is complete.
public struct CoverageReport: Equatable, Sendable {
    public var files: [FileSummary]
    public var totals: CoverageSummary
    public var directories: [CoverageGroup]
    public var targets: [CoverageGroup]
    public var metadata: ReportMetadata
    public var warnings: [Diagnostic]
    /// The coverage of the lines changed since `--diff-base` (nil without it).
    public var diff: DiffCoverage?
    /// The comparison with `--baseline` (nil without it, or when the baseline is being written).
    public var baseline: BaselineComparison?
    /// The part carried forward from the run that recorded the map (`run --affected`; nil otherwise).
    package var carriedForward: CarriedForward?

    public init(files: [FileSummary], metadata: ReportMetadata, warnings: [Diagnostic] = []) {
        self.files = files.sorted { $0.relativePath < $1.relativePath }
        self.totals = files.reduce(CoverageSummary()) { $0 + $1.summary }
        self.directories = RollUp.directories(of: self.files)
        self.targets = RollUp.targets(of: self.files)
        self.metadata = metadata
        self.warnings = warnings
    }
}

/// The whole model: the report and every file whole, in the report's order — what the outputs that
/// read the whole model (`Outputs.CoverageInput.wholeModel` in the Kit) and per-test coverage read.
/// The report's other members read through it (`model.totals`).
@dynamicMemberLookup
package struct CoverageModel: Equatable, Sendable {
    package var report: CoverageReport
    package var files: [FileCoverage]

    package init(report: CoverageReport, files: [FileCoverage]) {
        self.report = report
        self.files = files
    }

    package init(files: [FileCoverage], metadata: ReportMetadata, warnings: [Diagnostic] = []) {
        self.files = files.sorted { $0.relativePath < $1.relativePath }
        report = CoverageReport(files: self.files.map(\.summarized), metadata: metadata, warnings: warnings)
    }

    package subscript<T>(dynamicMember member: WritableKeyPath<CoverageReport, T>) -> T {
        get { report[keyPath: member] }
        set { report[keyPath: member] = newValue }
    }
}

extension Array where Element == ClosedRange<UInt32> {
    /// Line ranges as coverage.py prints them: `12-14, 20`.
    package var lineRangesText: String {
        map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
    }
}
