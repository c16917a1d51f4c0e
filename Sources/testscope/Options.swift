import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeKit
import TestscopeReports

/// Where and how every command writes: formats, folder, verbosity.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Output formats, repeatable or comma-separated: text, json, lcov, junit, html, cobertura, sonarqube, markdown (flaky: no lcov, cobertura, sonarqube). Default: text, json, lcov, junit, html.", valueName: "formats"))
    var format: [String] = []
    @Option(name: .long, help: ArgumentHelp("Output folder (default: .testscope under the package).", valueName: "dir"))
    var output: String?
    @Flag(name: .long, help: "Only errors, failures and the final verdict: no status line, notes or tables.")
    var quiet = false
    @Flag(name: .long, help: "Show the build's and the tests' raw output lines instead of the live status line.")
    var verbose = false
    @Flag(name: .long, help: "No colours (also when NO_COLOR is set).")
    var noColor = false
    @Flag(name: .long, help: "Open the HTML report when done (xdg-open on Linux, open on macOS); never fails the command.")
    var open = false

    /// The formats asked for (nil: the command's default), among the ones the command writes.
    func formats(supported: [ReportFormat] = ReportFormat.coverageFormats) throws -> [ReportFormat]? {
        let formats = try usage { try ReportFormat.parse(format, supported: supported, defaults: []) }
        return formats.isEmpty ? nil : formats
    }

    /// The settings these options describe (formats, folder and `--history`), before the command's own.
    func settings(supported: [ReportFormat] = ReportFormat.coverageFormats,
                  history: HistoryOption? = nil) throws -> ReportSettings {
        var settings = ReportSettings(formats: try formats(supported: supported), output: output.map(absoluteURL))
        settings.history = try history?.history.map(historyURL)
        return settings
    }

    var terminal: Terminal { Terminal.detect(quiet: quiet, noColor: noColor, verbose: verbose) }
}

/// `--history FILE.sqlite` of `run`, `flaky` and `merge` (docs/history.md).
struct HistoryOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Append this run to a history file (SQLite, created if missing) or a PostgreSQL database (postgresql://…), and draw history.html from it (docs/history.md).", valueName: "file.sqlite|url"))
    var history: String?
}

/// `--filter`/`--skip`, with SwiftPM's meaning.
struct TestSelectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Run only tests matching this regular expression (repeatable; as swift test --filter).", valueName: "regex"))
    var filter: [String] = []
    @Option(name: .long, help: ArgumentHelp("Leave out tests matching this regular expression (repeatable; as swift test --skip).", valueName: "regex"))
    var skip: [String] = []

    func validate() throws { try usage { try BuildSelection(filters: filter, skips: skip).validate() } }
}

/// How the tests are built: `-c` and the build folder, given to `swift build`.
struct BuildOptions: ParsableArguments {
    @Option(name: [.customShort("c"), .long], help: "Build configuration for swift build: debug or release.")
    var configuration: String?
    @Option(name: .long, help: ArgumentHelp("The build folder, given to swift build (default: .build/testscope in the package, shared by run and flaky).", valueName: "dir"))
    var scratchPath: String?

    func validate() throws { try usage { try BuildSelection(configuration: configuration).validate() } }

    /// These options with the filters of `tests`: the build selection `run` and `flaky` share.
    func selection(_ tests: TestSelectionOptions) -> BuildSelection {
        BuildSelection(filters: tests.filter, skips: tests.skip, configuration: configuration,
                       scratchPath: scratchPath.map(absoluteURL))
    }
}

/// The coverage options of `run` and `report`: filters, gate, HTML and toolchain.
struct CoverageOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Count only files matching this glob (relative to the package root; repeatable). Brings back files excluded by default, e.g. 'Tests/**'.", valueName: "glob")) var include: [String] = []
    @Option(name: .long, help: ArgumentHelp("Leave out files matching this glob (repeatable).", valueName: "glob")) var exclude: [String] = []
    @Option(name: .long, help: ArgumentHelp("Rewrite a path prefix in the coverage data, like llvm-cov's -path-equivalence (repeatable).", valueName: "from,to")) var pathEquivalence: [String] = []
    @Flag(name: .long, help: "List the uncovered line ranges of each file in the text report.") var showMissing = false
    @Option(name: .long, help: ArgumentHelp("Files on the final screen: the N with the lowest line coverage (default 10), or all (coverage.txt has every file).", valueName: "N|all")) var showFiles: String = "10"
    @Option(name: .long, help: ArgumentHelp("Percentages for colouring: below LOW red, below HIGH yellow, else green.", valueName: "low,high")) var watermarks: String = "50,80"
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total line coverage is below N percent.", valueName: "N")) var failUnderLines: Double?
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total function coverage is below N percent.", valueName: "N")) var failUnderFunctions: Double?
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if total region coverage is below N percent.", valueName: "N")) var failUnderRegions: Double?
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if any file's line coverage is below N percent.", valueName: "N")) var failUnderFile: Double?
    @Option(name: .long, help: ArgumentHelp("How profiles and binaries are read: native (Testscope's own readers, no llvm process) or llvm-cov (llvm-profdata merge + llvm-cov export).", valueName: "engine")) var engine: CoverageEngine = .native
    @Flag(name: .long, help: "Also write default.profdata and llvm-cov-export.json with the toolchain's llvm tools.") var keepLLVMArtifacts = false
    @Flag(name: .long, help: "Report a profile recorded by another build of the binary (its counts may be wrong), with a warning.") var allowMismatchedProfile = false
    @Option(name: .long, help: ArgumentHelp("The llvm-cov to use (default: the one beside the resolved swift; env TESTSCOPE_LLVM_COV).", valueName: "path")) var llvmCov: String?
    @Option(name: .long, help: ArgumentHelp("The llvm-profdata to use (default: beside swift; env TESTSCOPE_LLVM_PROFDATA).", valueName: "path")) var llvmProfdata: String?
    @Flag(name: .long, help: "JUnit without testcase file/line attributes: valid against the Ant and Jenkins JUnit schemas.") var junitStrict = false
    @Flag(name: .long, help: "Write the HTML report as one self-contained index.html (for small projects and CI artifacts).") var htmlSingleFile = false
    @Option(name: .long, help: ArgumentHelp("Render the HTML report with the templates in this folder (copies of Testscope's templates/; missing ones are taken from the built-in set).", valueName: "dir")) var templates: String?
    // Pull-request gate (docs/pull-requests.md): one line each, the CLI target stays under 450 lines.
    @Option(name: .long, help: ArgumentHelp("Classify the lines changed since the merge base of REF and HEAD (git diff -M): diff coverage.", valueName: "ref")) var diffBase: String?
    @Flag(name: .long, help: "With --diff-base: also count uncommitted (staged and unstaged) changes.") var diffIncludeUncommitted = false
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if the changed executable lines' coverage is below N percent.", valueName: "N")) var failUnderDiff: Double?
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if the coverage of regions starting on changed lines is below N percent.", valueName: "N")) var failUnderDiffRegions: Double?
    @Option(name: .long, help: ArgumentHelp("Fail (exit 2) if more than N changed executable lines are uncovered.", valueName: "N")) var maxUncoveredDiffLines: Int?
    @Option(name: .long, help: ArgumentHelp("Compare with this baseline (JSON counts): fail (exit 2) if total line coverage drops or a file gains uncovered lines.", valueName: "file")) var baseline: String?
    @Flag(name: .long, help: "Write --baseline FILE from this report instead of comparing (on the main branch).") var updateBaseline = false
    @Option(name: .long, help: ArgumentHelp("Percentage points the total line coverage may drop below the baseline's.", valueName: "N")) var baselineTolerance: Double = 0

    func validate() throws { _ = try settings(ReportSettings()) }

    /// `base` (formats and folder) with these options, parsed and checked by the library (`ReportSettings.parse`).
    func settings(_ base: ReportSettings) throws -> ReportSettings {
        var settings = base
        (settings.include, settings.exclude, settings.showMissing) = (include, exclude, showMissing)
        settings.gate = CoverageGate(lines: failUnderLines, functions: failUnderFunctions, regions: failUnderRegions,
                                     perFileLines: failUnderFile, diffLines: failUnderDiff, diffRegions: failUnderDiffRegions,
                                     maxUncoveredDiffLines: maxUncoveredDiffLines)
        (settings.pullRequest.diffBase, settings.pullRequest.includeUncommitted) = (diffBase, diffIncludeUncommitted)
        (settings.pullRequest.baseline, settings.pullRequest.updateBaseline) = (baseline.map(absoluteURL), updateBaseline)
        settings.pullRequest.baselineTolerance = baselineTolerance
        (settings.llvmCov, settings.llvmProfdata, settings.templates) = (llvmCov, llvmProfdata, templates.map(absoluteURL))
        (settings.junitStrict, settings.htmlSingleFile) = (junitStrict, htmlSingleFile)
        (settings.engine, settings.keepLLVMArtifacts, settings.allowMismatchedProfile) = (engine, keepLLVMArtifacts, allowMismatchedProfile)
        try usage { try settings.parse(watermarks: watermarks, showFiles: showFiles, pathEquivalences: pathEquivalence) }
        return settings
    }
}

/// Runs a check of the library: its error (a `UsageError`, a glob's) becomes a usage error that points to the help.
func usage<Result>(_ check: () throws -> Result) throws -> Result {
    do {
        return try check()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw ValidationError(error.localizedDescription)
    }
}

/// A `--history` location: a `postgresql://` (or `postgres://`) URL as it is (libpq reads it), else a file path.
func historyURL(_ text: String) throws -> URL {
    guard text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") else {
        // `postgresq://…` is a typo, not a file to create (`a:/b` would become a folder `a:` and a file).
        if let scheme = text.range(of: "://").map({ text[..<$0.lowerBound] }), !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0 == "+" }) {
            throw ValidationError("history \(HistoryLocation.redacted(text)): Testscope knows no \(scheme):// history; a team history is postgresql://… (or postgres://…), a file history a path")
        }
        return absoluteURL(text)
    }
    guard let url = URL(string: text) else {
        throw ValidationError("--history \(HistoryLocation.redacted(text)) is not a URL libpq and Testscope both read; percent-encode special characters (postgresql://user:password@host:5432/db?sslmode=verify-full)")
    }
    return url
}

/// Resolves a user-given path against the working directory.
func absoluteURL(_ path: String) -> URL {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        .absoluteURL.standardizedFileURL
}

extension CoverageEngine: ExpressibleByArgument {}

/// `run --affected` and its companions (docs/impact-analysis.md).
struct AffectedOptionGroup: ParsableArguments {
    @Flag(name: .long, help: "Run only the tests the change since the newest recorded run (an ancestor of HEAD) can reach; the others are reported skipped. Needs --history; records per-test coverage for the next selection.")
    var affected = false
    @Option(name: .long, help: ArgumentHelp("With --affected: select from the newest run recorded at an ancestor of this commit instead of HEAD.", valueName: "ref"))
    var since: String?
    @Flag(name: .long, help: "With --affected: run every test, and report which ones the selection would have skipped and whether any of them failed.")
    var observe = false
    @Option(name: .long, help: ArgumentHelp("With --affected: always run the tests whose id matches this regular expression (repeatable).", valueName: "regex"))
    var alwaysRun: [String] = []
    @Option(name: .long, help: ArgumentHelp("With --affected: print why this test would run or be skipped (the rule and the changed file:line or function), and stop (repeatable).", valueName: "test"))
    var why: [String] = []
    @Option(name: .customLong("ignore-change"), help: ArgumentHelp("With --affected: a change to a file matching this glob (package-relative; *, ** and ?) reaches no test, e.g. 'Scripts/**' (repeatable).", valueName: "glob"))
    var ignoreChanges: [String] = []

    var options: AffectedOptions? {
        affected ? AffectedOptions(since: since, observe: observe, alwaysRun: alwaysRun, why: why, ignoreChanges: ignoreChanges) : nil
    }

    func validate(history: String?) throws {
        if !affected {
            for (name, given) in [("--since", since != nil), ("--observe", observe), ("--always-run", !alwaysRun.isEmpty), ("--why", !why.isEmpty), ("--ignore-change", !ignoreChanges.isEmpty)] where given {
                throw ValidationError("\(name) needs --affected")
            }
            return
        }
        if history == nil { throw ValidationError("--affected needs --history FILE.sqlite, the store of the recorded runs it selects from") }
    }
}
