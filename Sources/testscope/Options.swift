import ArgumentParser
import Foundation
import TestscopeCoverage
import TestscopeExecution
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
        do {
            let formats = try ReportFormat.parse(format, supported: supported, defaults: [])
            return formats.isEmpty ? nil : formats
        } catch let error as ReportFormatError {
            throw ValidationError(error.message)
        }
    }

    var terminal: Terminal { Terminal.detect(quiet: quiet, noColor: noColor, verbose: verbose) }
}

/// `--history FILE.sqlite` of `run`, `flaky` and `merge` (docs/history.md).
struct HistoryOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Append this run to a history file (SQLite, created if missing) and draw history.html from it (docs/history.md).", valueName: "file.sqlite"))
    var history: String?
}

/// `--filter`/`--skip`, with SwiftPM's meaning.
struct TestSelectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Run only tests matching this regular expression (repeatable; as swift test --filter).", valueName: "regex"))
    var filter: [String] = []
    @Option(name: .long, help: ArgumentHelp("Leave out tests matching this regular expression (repeatable; as swift test --skip).", valueName: "regex"))
    var skip: [String] = []

    func validate() throws {
        for (name, patterns) in [("--filter", filter), ("--skip", skip)] {
            for pattern in patterns where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw ValidationError("\(name) '\(pattern)' is not a regular expression")
            }
        }
    }
}

/// How the tests are built: `-c` and the build folder, given to `swift build`.
struct BuildOptions: ParsableArguments {
    @Option(name: [.customShort("c"), .long], help: "Build configuration for swift build: debug or release.")
    var configuration: String?
    @Option(name: .long, help: ArgumentHelp("The build folder, given to swift build (flaky's default: .build/testscope-flaky in the package).", valueName: "dir"))
    var scratchPath: String?

    func validate() throws {
        if let configuration, !["debug", "release"].contains(configuration) {
            throw ValidationError("-c/--configuration takes debug or release, not \(configuration)")
        }
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

    func validate() throws {
        _ = try parsedWatermarks()
        if FileRows(parsing: showFiles) == nil { throw ValidationError("--show-files takes a number of files or 'all', not \(showFiles)") }
        for (name, value) in [("--fail-under-lines", failUnderLines), ("--fail-under-functions", failUnderFunctions),
                              ("--fail-under-regions", failUnderRegions), ("--fail-under-file", failUnderFile),
                              ("--fail-under-diff", failUnderDiff), ("--fail-under-diff-regions", failUnderDiffRegions)] {
            if let value, !(0...100).contains(value) { throw ValidationError("\(name) takes a percentage from 0 to 100, not \(value)") }
        }
        if (maxUncoveredDiffLines ?? 0) < 0 || !(0...100).contains(baselineTolerance) { throw ValidationError("--max-uncovered-diff-lines takes a count >= 0, --baseline-tolerance 0 to 100 points") }
        if diffBase == nil, failUnderDiff != nil || failUnderDiffRegions != nil || maxUncoveredDiffLines != nil { throw ValidationError("--fail-under-diff, --fail-under-diff-regions and --max-uncovered-diff-lines need --diff-base REF") }
        if updateBaseline, baseline == nil { throw ValidationError("--update-baseline needs --baseline FILE (the file to write)") }
        for pattern in include + exclude { do { _ = try Glob(pattern) } catch { throw ValidationError(error.localizedDescription) } }
        for value in pathEquivalence { do { _ = try PathEquivalence(parsing: value) } catch { throw ValidationError(error.localizedDescription) } }
    }

    func parsedWatermarks() throws -> Watermarks {
        guard let parsed = Watermarks(parsing: watermarks) else {
            throw ValidationError("--watermarks takes LOW,HIGH percentages with LOW <= HIGH, e.g. 50,80")
        }
        return parsed
    }

    /// The settings these options and `output` describe.
    func settings(_ output: OutputOptions) throws -> ReportSettings {
        var settings = ReportSettings(formats: try output.formats(), output: output.output.map(absoluteURL))
        (settings.include, settings.exclude, settings.showMissing) = (include, exclude, showMissing)
        settings.showFiles = FileRows(parsing: showFiles) ?? .worst(10)
        settings.pathEquivalences = try pathEquivalence.map(PathEquivalence.init(parsing:))
        settings.watermarks = try parsedWatermarks()
        settings.gate = CoverageGate(lines: failUnderLines, functions: failUnderFunctions, regions: failUnderRegions, perFileLines: failUnderFile,
                                     diffLines: failUnderDiff, diffRegions: failUnderDiffRegions, maxUncoveredDiffLines: maxUncoveredDiffLines)
        (settings.pullRequest.diffBase, settings.pullRequest.includeUncommitted, settings.pullRequest.baseline) = (diffBase, diffIncludeUncommitted, baseline.map(absoluteURL))
        (settings.pullRequest.updateBaseline, settings.pullRequest.baselineTolerance) = (updateBaseline, baselineTolerance)
        (settings.llvmCov, settings.llvmProfdata, settings.templates) = (llvmCov, llvmProfdata, templates.map(absoluteURL))
        (settings.junitStrict, settings.htmlSingleFile) = (junitStrict, htmlSingleFile)
        (settings.engine, settings.keepLLVMArtifacts, settings.allowMismatchedProfile) = (engine, keepLLVMArtifacts, allowMismatchedProfile)
        return settings
    }
}

/// Resolves a user-given path against the working directory.
func absoluteURL(_ path: String) -> URL {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        .absoluteURL.standardizedFileURL
}

extension CoverageEngine: ExpressibleByArgument {}
