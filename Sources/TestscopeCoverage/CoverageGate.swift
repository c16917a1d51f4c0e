/// The CI gate: minimum percentages for the totals and for every file.
public struct CoverageGate: Sendable, Equatable {
    public var lines: Double?
    public var functions: Double?
    public var regions: Double?
    /// Every file must reach this line percentage.
    public var perFileLines: Double?

    public init(lines: Double? = nil, functions: Double? = nil, regions: Double? = nil, perFileLines: Double? = nil) {
        self.lines = lines
        self.functions = functions
        self.regions = regions
        self.perFileLines = perFileLines
    }

    public var isEmpty: Bool { lines == nil && functions == nil && regions == nil && perFileLines == nil }

    /// Which threshold.
    public enum Threshold: String, Sendable, CaseIterable {
        case lines, functions, regions
        /// Every file's line coverage.
        case fileLines
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

        public static func == (a: Failure, b: Failure) -> Bool {
            a.threshold == b.threshold && a.metric == b.metric && a.required == b.required && a.measured == b.measured
                && a.files.map(\.path) == b.files.map(\.path)
        }
    }

    public func evaluate(_ report: CoverageReport, worst: Int = 5) -> [Failure] {
        var failures: [Failure] = []
        func check(_ threshold: Threshold, _ metric: String, _ required: Double?, _ ratio: CoverageRatio,
                   _ perFile: (FileCoverage) -> CoverageRatio) {
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
        return failures
    }
}
