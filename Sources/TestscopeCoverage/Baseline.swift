import Foundation
import TestscopeExecution

/// A committed or archived snapshot of a report's counts (`--baseline FILE`, docs/baseline.md):
/// counts, never percentages, so that deleting covered code is not mistaken for a regression.
package struct CoverageBaseline: Codable, Equatable, Sendable {
    package static let schemaURL = "https://testscope.dev/schemas/baseline/1"

    /// Covered and executable counts of one metric.
    package struct Counts: Codable, Equatable, Sendable {
        package var covered: Int
        package var total: Int

        package init(_ ratio: CoverageRatio) { (covered, total) = (ratio.covered, ratio.total) }
        package var ratio: CoverageRatio { CoverageRatio(covered: covered, total: total) }
    }

    /// One file's line and region counts.
    package struct FileCounts: Codable, Equatable, Sendable {
        package var lines: Counts
        package var regions: Counts
    }

    package var schema: String
    package var generator: String
    package var createdAt: String
    /// The package folder's name (for messages).
    package var package: String
    /// `git rev-parse HEAD` when it was written (nil outside a repository).
    package var commit: String?
    /// The llvm-cov (or toolchain) the report was made with.
    package var toolchain: String?
    package var totals: FileCounts
    /// By path relative to the package root.
    package var files: [String: FileCounts]

    /// The baseline of `report`.
    package init(report: CoverageReport, package: String, commit: String?, generator: String) {
        schema = Self.schemaURL
        self.generator = generator
        createdAt = report.metadata.createdAt
        self.package = package
        self.commit = commit
        toolchain = report.metadata.toolchain
        totals = FileCounts(lines: Counts(report.totals.lines), regions: Counts(report.totals.regions))
        files = Dictionary(uniqueKeysWithValues: report.files.map {
            ($0.relativePath, FileCounts(lines: Counts($0.summary.lines), regions: Counts($0.summary.regions)))
        })
    }

    /// The JSON text, keys sorted (a committed baseline diffs cleanly).
    package func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Compares `report` with this baseline. `renames` maps a current package-relative path to its
    /// path in the baseline (git's rename detection); `tolerance` is in percentage points.
    package func compare(with report: CoverageReport, renames: [String: String] = [:], tolerance: Double = 0) -> BaselineComparison {
        var regressions: [BaselineComparison.FileRegression] = []
        for file in report.files {
            let old = renames[file.relativePath] ?? file.relativePath
            let before = files[old]
            let uncoveredBefore = before.map { $0.lines.total - $0.lines.covered } ?? 0
            if file.summary.lines.missed > uncoveredBefore {
                regressions.append(.init(path: file.relativePath, baselinePath: before == nil ? nil : old,
                                         baseline: before?.lines.ratio, current: file.summary.lines))
            }
        }
        let before = totals.lines.ratio.percent, now = report.totals.lines.percent
        let dropped = before.map { (now ?? 0) + tolerance + 1e-9 < $0 } ?? false
        return BaselineComparison(commit: commit, toolchain: toolchain, baselineLines: totals.lines.ratio, currentLines: report.totals.lines,
                                  tolerance: tolerance, totalDropped: dropped, regressions: regressions, warnings: [])
    }
}

/// The verdict of comparing a report with its baseline: what regressed, with the numbers.
public struct BaselineComparison: Equatable, Sendable {
    /// A file whose uncovered line count grew (or a new file with uncovered lines).
    public struct FileRegression: Equatable, Sendable {
        public var path: String
        /// The path in the baseline (differs after a rename); nil for a file the baseline does not have.
        public var baselinePath: String?
        public var baseline: CoverageRatio?
        public var current: CoverageRatio

        public var uncoveredBefore: Int { baseline?.missed ?? 0 }
        public var addedUncovered: Int { current.missed - uncoveredBefore }
    }

    public var commit: String?
    public var toolchain: String?
    public var baselineLines: CoverageRatio
    public var currentLines: CoverageRatio
    public var tolerance: Double
    /// The total line coverage fell below the baseline's by more than the tolerance.
    public var totalDropped: Bool
    public var regressions: [FileRegression]
    /// Why the comparison may mislead (another toolchain, a commit that is not an ancestor).
    public var warnings: [Diagnostic]

    public var passed: Bool { !totalDropped && regressions.isEmpty }
}
