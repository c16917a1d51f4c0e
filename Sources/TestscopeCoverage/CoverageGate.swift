/// The CI gate: minimum percentages for the totals and for every file.
public struct CoverageGate: Sendable, Equatable {
    public var lines: Double?
    public var functions: Double?
    public var regions: Double?
    /// Every file must reach this line percentage.
    public var perFileLines: Double?
    /// Changed executable lines (`report.diff`) that ran, in percent.
    public var diffLines: Double?
    /// Regions starting on changed lines that ran, in percent.
    public var diffRegions: Double?
    /// At most this many changed executable lines may be uncovered.
    public var maxUncoveredDiffLines: Int?

    public init(lines: Double? = nil, functions: Double? = nil, regions: Double? = nil, perFileLines: Double? = nil,
                diffLines: Double? = nil, diffRegions: Double? = nil, maxUncoveredDiffLines: Int? = nil) {
        self.lines = lines
        self.functions = functions
        self.regions = regions
        self.perFileLines = perFileLines
        self.diffLines = diffLines
        self.diffRegions = diffRegions
        self.maxUncoveredDiffLines = maxUncoveredDiffLines
    }

    public var isEmpty: Bool {
        lines == nil && functions == nil && regions == nil && perFileLines == nil && diffLines == nil && diffRegions == nil
            && maxUncoveredDiffLines == nil
    }

    /// Which threshold.
    public enum Threshold: String, Sendable, CaseIterable {
        case lines, functions, regions
        /// Every file's line coverage.
        case fileLines
        /// Diff coverage: changed lines, regions on changed lines, the count of uncovered changed lines.
        case diffLines, diffRegions, diffUncoveredLines
        /// The baseline ratchet (`report.baseline` did not pass).
        case baseline
    }

    /// One threshold that was not met.
    public struct Failure: Sendable, Equatable {
        public var threshold: Threshold
        /// What was measured, in words (`lines`, `lines in every file`).
        public var metric: String
        public var required: Double
        /// The measured percentage (nil for 0/0, which fails any positive threshold).
        public var measured: Double?
        /// The worst files for this metric, lowest first (for the per-file gate: every file below).
        public var files: [(path: String, ratio: CoverageRatio)]
        /// For the diff gates: the changed lines that fail, per file (uncovered; for regions also partial).
        public var lineRanges: [(path: String, ranges: [ClosedRange<UInt32>])] = []

        public static func == (a: Failure, b: Failure) -> Bool {
            a.threshold == b.threshold && a.metric == b.metric && a.required == b.required && a.measured == b.measured
                && a.files.map(\.path) == b.files.map(\.path) && a.lineRanges.map(\.path) == b.lineRanges.map(\.path)
                && a.lineRanges.map(\.ranges) == b.lineRanges.map(\.ranges)
        }
    }

    public func evaluate(_ report: CoverageReport, worst: Int = 5) -> [Failure] {
        var failures: [Failure] = []
        func check(_ threshold: Threshold, _ metric: String, _ required: Double?, _ ratio: CoverageRatio,
                   _ perFile: (FileSummary) -> CoverageRatio) {
            guard let required else { return }
            let measured = ratio.percent
            guard (measured ?? 0) + 1e-9 < required else { return }
            let files = report.files.map { ($0.relativePath, perFile($0)) }
                .filter { $0.1.total > 0 && $0.1.missed > 0 }
                .sorted { ($0.1.percent ?? 0, -$0.1.missed, $0.0) < ($1.1.percent ?? 0, -$1.1.missed, $1.0) }
            failures.append(Failure(threshold: threshold, metric: metric, required: required, measured: measured,
                                    files: Array(files.prefix(worst))))
        }
        check(.lines, "lines", lines, report.totals.lines) { $0.summary.lines }
        check(.functions, "functions", functions, report.totals.functions) { $0.summary.functions }
        check(.regions, "regions", regions, report.totals.regions) { $0.summary.regions }
        if let perFileLines {
            let below = report.files.filter { ($0.summary.lines.percent ?? 100) + 1e-9 < perFileLines }
                .sorted { ($0.summary.lines.percent ?? 0, $0.relativePath) < ($1.summary.lines.percent ?? 0, $1.relativePath) }
            if !below.isEmpty {
                failures.append(Failure(threshold: .fileLines, metric: "lines in every file", required: perFileLines,
                                        measured: below[0].summary.lines.percent,
                                        files: below.map { ($0.relativePath, $0.summary.lines) }))
            }
        }
        failures += evaluateDiff(report.diff)
        if let baseline = report.baseline, !baseline.passed {
            failures.append(Failure(threshold: .baseline, metric: "lines against the baseline",
                                    required: (baseline.baselineLines.percent ?? 0) - baseline.tolerance, measured: baseline.currentLines.percent,
                                    files: baseline.regressions.map { ($0.path, $0.current) }))
        }
        return failures
    }

    /// The diff gates; no executable changed line passes them all (nothing to measure is not a failure).
    func evaluateDiff(_ diff: DiffCoverage?) -> [Failure] {
        guard let diff, diff.hasExecutableChanges else { return [] }
        var failures: [Failure] = []
        let worst = diff.files.filter { !$0.uncoveredLines.isEmpty }.sorted(by: Self.lowerLineCoverage)
        let ranges: [(path: String, ranges: [ClosedRange<UInt32>])] = worst.map { ($0.path, $0.uncoveredLines) }
        let worstFiles: [(path: String, ratio: CoverageRatio)] = worst.map { ($0.path, $0.lines) }
        if let diffLines, (diff.lines.percent ?? 0) + 1e-9 < diffLines {
            failures.append(Failure(threshold: .diffLines, metric: "changed lines", required: diffLines, measured: diff.lines.percent,
                                    files: worstFiles, lineRanges: ranges))
        }
        if let diffRegions, diff.regions.total > 0, (diff.regions.percent ?? 0) + 1e-9 < diffRegions {
            let missed = diff.files.filter { $0.regions.missed > 0 }
            let files: [(path: String, ratio: CoverageRatio)] = missed.map { ($0.path, $0.regions) }
            let lineRanges: [(path: String, ranges: [ClosedRange<UInt32>])] = missed.map { ($0.path, Self.merged($0.uncoveredLines + $0.partialLines)) }
            failures.append(Failure(threshold: .diffRegions, metric: "regions on changed lines", required: diffRegions,
                                    measured: diff.regions.percent, files: files, lineRanges: lineRanges))
        }
        if let maxUncoveredDiffLines, diff.uncoveredLines > maxUncoveredDiffLines {
            failures.append(Failure(threshold: .diffUncoveredLines, metric: "uncovered changed lines", required: Double(maxUncoveredDiffLines),
                                    measured: Double(diff.uncoveredLines), files: worstFiles, lineRanges: ranges))
        }
        return failures
    }

    static func lowerLineCoverage(_ a: DiffFileCoverage, _ b: DiffFileCoverage) -> Bool {
        let (pa, pb) = (a.lines.percent ?? 0, b.lines.percent ?? 0)
        return pa != pb ? pa < pb : a.path < b.path
    }

    static func merged(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound + 1 {
                result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else { result.append(range) }
        }
        return result
    }
}
