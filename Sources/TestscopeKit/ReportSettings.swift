import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeReports
import TestscopeTerminal

/// How the reports of `run`, `report` and `flaky` are written: formats, folder, filters, gate and
/// toolchain overrides — the values behind the command line's shared options.
public struct ReportSettings: Sendable {
    /// The formats asked for; nil: the command's default (every format it has).
    public var formats: [ReportFormat]?
    /// The output folder; nil: `.testscope` in the package.
    public var output: URL?
    /// Globs relative to the package root.
    public var include: [String] = []
    public var exclude: [String] = []
    public var pathEquivalences: [PathEquivalence] = []
    public var showMissing = false
    /// `--show-files`: the files the final screen lists (`coverage.txt` always has them all).
    public var showFiles = FileRows.worst(10)
    public var watermarks = Watermarks()
    public var gate = CoverageGate()
    /// `--diff-base` and the baseline ratchet (their thresholds are in `gate`).
    public var pullRequest = PullRequestSettings()
    public var llvmCov: String?
    public var llvmProfdata: String?
    /// JUnit without testcase file/line attributes.
    public var junitStrict = false
    public var htmlSingleFile = false
    /// A folder of user templates for the HTML report.
    public var templates: URL?
    /// Which engine reads profiles and binaries (`--engine`).
    public var engine = CoverageEngine.native
    /// Also write `default.profdata` and `llvm-cov-export.json` with the toolchain's tools (`--keep-llvm-artifacts`).
    public var keepLLVMArtifacts = false
    /// Report a profile recorded by another build of the binary, with a warning (`--allow-mismatched-profile`).
    public var allowMismatchedProfile = false
    /// The slice of a universal (Mach-O) binary to report (`report --arch`, llvm-cov's `-arch`); default: the host's, else the only one.
    public var architecture: String?
    /// `--history FILE.sqlite` (`run`, `flaky`, `merge`): the run is appended and `history.html` drawn from the file.
    public var history: URL?
    /// The build folder `swift package describe` is given (`report --scratch-path`; `run` sets its own build folder).
    public var scratchPath: URL?
    /// How the profiles were recorded (atomic counters, tests in parallel), when known: `run` sets it,
    /// `report` of the last run reads it back; it names the cause of lines of unknown count.
    public var negativeCounts = NegativeCountCause.unknown

    public init(formats: [ReportFormat]? = nil, output: URL? = nil) {
        self.formats = formats
        self.output = output
    }

    /// The HTML renderer with the built-in templates or the `templates` folder (checked here, before any work).
    package func htmlReport() throws -> HTMLReport {
        let set = try templates.map { try HTMLTemplates.load(directory: $0) } ?? HTMLTemplates.builtIn()
        return HTMLReport(templates: set, watermarks: watermarks, singleFile: htmlSingleFile, generatorVersion: TestscopeVersion.current)
    }

    /// The toolchain's tools, with the overrides.
    package func toolchain() throws -> Toolchain {
        try Toolchain.locate(overrides: Toolchain.Overrides(llvmCov: llvmCov, llvmProfdata: llvmProfdata))
    }

    /// The output folder: `output`, or `.testscope` in the package.
    package func outputFolder(packageRoot: URL) -> OutputFolder {
        OutputFolder((output ?? packageRoot.appendingPathComponent(".testscope")).absoluteURL)
    }

    /// How the model is built: the filter of `layout` (its test folders) and `--include`/`--exclude`, the equivalences.
    func buildOptions(packageRoot: URL, toolchain: Toolchain?, dataRecordedAt: Date?, layout: PackageLayout) throws -> CoverageBuildOptions {
        var options = CoverageBuildOptions(
            packageRoot: packageRoot, layout: layout,
            filter: SourceFilter(root: packageRoot.path, testDirectories: layout.testDirectories,
                                 include: try include.map(Glob.init), exclude: try exclude.map(Glob.init)),
            pathEquivalences: pathEquivalences, demangler: SwiftDemangler(library: toolchain?.demangler),
            toolchainDescription: toolchain.map { $0.llvmCov.path }, dataRecordedAt: dataRecordedAt)
        options.negativeCounts = negativeCounts
        return options
    }
}

extension ReportSettings {
    /// Sets `--watermarks`, `--show-files` and `--path-equivalence` from their text and checks every
    /// value (`validate()`), in the order the command line has always checked them, so that of several
    /// mistakes the same one is named first. Throws a `UsageError`, or the path equivalence's own error.
    public mutating func parse(watermarks: String, showFiles: String, pathEquivalences: [String]) throws {
        guard let parsedWatermarks = Watermarks(parsing: watermarks) else {
            throw UsageError("--watermarks takes LOW,HIGH percentages with LOW <= HIGH, e.g. 50,80")
        }
        guard let rows = FileRows(parsing: showFiles) else {
            throw UsageError("--show-files takes a number of files or 'all', not \(showFiles)")
        }
        (self.watermarks, self.showFiles) = (parsedWatermarks, rows)
        try validate()
        self.pathEquivalences = try pathEquivalences.map(PathEquivalence.init(parsing:))
    }

    /// Checks the values a request cannot take: thresholds outside 0–100, a negative count, diff
    /// thresholds without `--diff-base`, `--update-baseline` without a file, globs that do not parse.
    public func validate() throws {
        let percentages: [(CoverageGate.Threshold, Double?)] = [
            (.lines, gate.lines), (.functions, gate.functions), (.regions, gate.regions), (.fileLines, gate.perFileLines),
            (.diffLines, gate.diffLines), (.diffRegions, gate.diffRegions),
        ]
        for (threshold, value) in percentages {
            if let value, !(0...100).contains(value) {
                throw UsageError("\(CoverageReporting.option(threshold)) takes a percentage from 0 to 100, not \(value)")
            }
        }
        if (gate.maxUncoveredDiffLines ?? 0) < 0 || !(0...100).contains(pullRequest.baselineTolerance) {
            throw UsageError("--max-uncovered-diff-lines takes a count >= 0, --baseline-tolerance 0 to 100 points")
        }
        if pullRequest.diffBase == nil, gate.diffLines != nil || gate.diffRegions != nil || gate.maxUncoveredDiffLines != nil {
            throw UsageError("--fail-under-diff, --fail-under-diff-regions and --max-uncovered-diff-lines need --diff-base REF")
        }
        if pullRequest.updateBaseline, pullRequest.baseline == nil {
            throw UsageError("--update-baseline needs --baseline FILE (the file to write)")
        }
        for pattern in include + exclude { _ = try Glob(pattern) }
    }
}

/// Testscope's version, written into reports.
public enum TestscopeVersion {
    public static let current = "0.1.0"
}
