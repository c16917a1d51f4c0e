import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeImpact
import TestscopeTestResults

/// Which tests `run` and `flaky` build and run, and how: the options the two share.
public struct BuildSelection: Sendable, Equatable {
    /// SwiftPM's `--filter`/`--skip` regular expressions.
    public var filters: [String]
    public var skips: [String]
    /// `-c`: debug or release (nil: SwiftPM's default, debug).
    public var configuration: String?
    /// `--scratch-path`; nil: the command's own build folder.
    public var scratchPath: URL?

    public init(filters: [String] = [], skips: [String] = [], configuration: String? = nil, scratchPath: URL? = nil) {
        self.filters = filters
        self.skips = skips
        self.configuration = configuration
        self.scratchPath = scratchPath
    }

    /// Checks the patterns (regular expressions, as SwiftPM reads them) and the configuration; the first
    /// problem is a `UsageError` that names the option.
    public func validate() throws {
        for (name, patterns) in [("--filter", filters), ("--skip", skips)] {
            for pattern in patterns where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw UsageError("\(name) '\(pattern)' is not a regular expression")
            }
        }
        if let configuration, !["debug", "release"].contains(configuration) {
            throw UsageError("-c/--configuration takes debug or release, not \(configuration)")
        }
    }
}

/// `testscope run`: build the tests with coverage, run them, report coverage and results.
public struct RunRequest: Sendable {
    public var packageRoot: URL
    /// `--filter`/`--skip`, `-c` and `--scratch-path` (default: `.build/testscope`, see `atomicCounters`).
    public var selection = BuildSelection()
    /// Kill a test that runs longer (seconds).
    public var testTimeout: Double?
    /// Arguments after `--`: for `swift build`, except `--disable-xctest`/`--disable-swift-testing`.
    public var buildArguments: [String] = []
    /// Build with atomic counter updates (into `.build/testscope` unless `scratchPath` is given).
    public var atomicCounters = true
    /// `--shard K/N`: run only this part of the tests and write `.testscope-shard.json` for `merge`.
    public var shard: TestShard?
    /// `--shard-timings`: an earlier `tests.json` whose durations balance the shards.
    public var shardTimings: URL?
    /// `--per-test-coverage`: which tests ran which lines (`per-test.json`), from a build with Testscope's
    /// entry point (into `.build/testscope`, the build `run` and `flaky` share, unless `scratchPath` is given).
    public var perTestCoverage = false
    /// `--affected`: only these of the tests --filter/--skip leave run; every other one is reported skipped
    /// with its reason, and the time saved is the skipped tests' recorded durations.
    public var testSelection: TestSelection?
    /// `--affected`: run only the tests the change since the newest recorded impact map can reach (needs
    /// `settings.history`); implies per-test coverage (failure labels; a run
    /// that skips nothing records the next map).
    public var affected: AffectedOptions?
    /// `--affected`'s decisions, by test id (the reports' `selection` fields), and whether they were only observed.
    package var selectionDecisions: [String: SelectionDecision] = [:]
    package var observedSelection = false
    /// With `testSelection`: the skipped tests' recorded lines (`AffectedSelection.carriedCoverage`), added
    /// to the run's coverage so that its report is the full suite's; nil: the run's own coverage.
    package var carryForward: CarriedCoverage?
    /// The decision of a test that `selectionDecisions` does not list (the selection knows the map's tests
    /// only, before the build): a new test, or every test of a full run, runs with this reason.
    package var unlistedSelection: SelectionDecision?
    /// Labels the failing tests (`FailureLabel`, by id), called once with the run's per-test coverage and the
    /// failing tests' ids (without per-test coverage, every failure is labelled unknown instead).
    package var failureLabeler: FailureLabeler?
    /// `--retry-untouched N`: failures labelled notTouched run again up to N times in the same build; one that
    /// then passes is reported flaky. Needs `failureLabeler`.
    public var retryUntouched = 0
    /// `--fail-on-flaky`: a test that passed only on a retry makes the run's status `.flaky`.
    public var failOnFlaky = false
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }

    /// Checks the retries (a count of at least 0, and labels to choose the failures by) and `--affected`'s needs.
    public func validate() throws {
        if retryUntouched < 0 { throw UsageError("--retry-untouched takes a count of 0 or more, not \(retryUntouched)") }
        let labelled = failureLabeler != nil || affected != nil || (settings.pullRequest.diffBase != nil && perTestCoverage)
        if retryUntouched > 0 && !labelled {
            throw UsageError("--retry-untouched needs failure labels, which come with --affected, or --diff-base REF with --per-test-coverage")
        }
        if let affected {
            if settings.history == nil { throw UsageError("--affected needs --history FILE.sqlite, the store of the recorded runs it selects from") }
            for pattern in affected.alwaysRun where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw UsageError("--always-run '\(pattern)' is not a regular expression")
            }
            for glob in affected.ignoreChanges where glob.isEmpty || glob.hasPrefix("/") || glob.split(separator: "/").contains("..") {
                throw UsageError("--ignore-change '\(glob)' must be a glob relative to the package's folder, e.g. 'Scripts/**'")
            }
        }
    }
}

/// `run --affected`'s options.
public struct AffectedOptions: Sendable, Equatable {
    /// `--since REF`: select from the newest map recorded at an ancestor of REF (default: HEAD).
    public var since: String?
    /// `--observe`: run every test; report what the selection would have skipped and whether any of it failed.
    public var observe = false
    /// `--always-run REGEX`: tests (ids) that always run.
    public var alwaysRun: [String] = []
    /// `--why TEST`: print the decision for each of these tests and stop (nothing is built or run).
    public var why: [String] = []
    /// `--ignore-change GLOB`: package-relative globs of files whose changes reach no test (scripts, IDE files).
    public var ignoreChanges: [String] = []

    public init(since: String? = nil, observe: Bool = false, alwaysRun: [String] = [], why: [String] = [], ignoreChanges: [String] = []) {
        self.since = since
        self.observe = observe
        self.alwaysRun = alwaysRun
        self.why = why
        self.ignoreChanges = ignoreChanges
    }
}

/// What `RunRequest.failureLabeler` is: the run's per-test coverage and the failing tests' ids in, a label per id out.
package typealias FailureLabeler = @Sendable (PerTestCoverage, [String]) -> [String: FailureLabel]

/// `testscope merge`: the output folders of `run --shard K/N` reported as one run.
public struct MergeRequest: Sendable {
    public var packageRoot: URL
    /// The shards' output folders.
    public var shards: [URL]
    /// The test binary the shards ran (`--binary`), or a build folder to find it in (`--build-path`);
    /// neither: the binary the shards recorded, else the package's build folders.
    public var binary: URL?
    public var buildPath: URL?
    public var settings: ReportSettings

    public init(packageRoot: URL, shards: [URL], settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.shards = shards
        self.settings = settings
    }
}

/// `testscope report`: reports from existing artifacts, without running tests.
public struct ReportRequest: Sendable {
    public var packageRoot: URL
    /// False when `packageRoot` is only the default (the current directory): a run reported again then
    /// uses the package root it recorded.
    public var packageRootGiven = true
    /// llvm-cov JSON exports (merged).
    public var exports: [URL] = []
    /// `.profdata`/`.profraw` profiles with the binaries they were recorded with.
    public var profiles: [URL] = []
    public var binaries: [URL] = []
    /// A SwiftPM build folder to find the newest profiles and the test binary in.
    public var buildPath: URL?
    /// Test results: `swift test` logs, Swift Testing event streams, JUnit files.
    public var testLogs: [URL] = []
    public var eventStreams: [URL] = []
    public var junit: [URL] = []
    /// `swift test list` output (module names XCTest logs omit).
    public var testList: URL?
    /// `--from`: the output folder of the run to report again when no input is given (nil: the output folder).
    public var from: URL?
    /// The reported run's supervisor verdicts (relaunches, timeouts), which its logs do not hold.
    public var supervisor: LastRun.SupervisorVerdicts?
    /// The reported run's carried-forward coverage (a selective run's), added to the profiles' counts.
    package var carryForward: CarriedCoverage?
    /// `--tests-for`/`--covered-by`: a question to the `per-test.json` of `from` or the output folder, answered instead of a report.
    public var perTest: PerTestQuery?
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }

    /// Whether coverage inputs were given.
    public var hasCoverageInput: Bool { !exports.isEmpty || !profiles.isEmpty || buildPath != nil || (carryForward != nil && !binaries.isEmpty) }
    /// Whether test-result inputs were given.
    public var hasTestInput: Bool { !testLogs.isEmpty || !eventStreams.isEmpty || !junit.isEmpty }
}

/// `testscope flaky`: seeded orders, classification, culprits — or one given order replayed.
public struct FlakyRequest: Sendable {
    /// What to run.
    public enum Mode: Sendable, Equatable {
        /// Detection over `runs` orders.
        case detect
        /// Run K of the seed's plan, `repeat` times.
        case replay(run: Int, repeat: Int)
        /// Exactly this order (`--order`), `repeat` times.
        case order([String], repeat: Int)
        /// Exactly the order in this file (`--order-file`), `repeat` times.
        case orderFile(URL, repeat: Int)
    }

    public var packageRoot: URL
    public var mode: Mode = .detect
    public var runs: Int = 10
    /// nil: a random seed (printed).
    public var seed: UInt64?
    /// nil: adaptive (one per core, more while the CPUs sit idle).
    public var jobs: Int?
    public var testTimeout: Double = 120
    /// `--filter`/`--skip`, `-c` and `--scratch-path` (default: `.build/testscope`, shared with `run`).
    public var selection = BuildSelection()
    /// Known flaky tests (one id per line): run and reported, never counted.
    public var quarantineFile: URL?
    public var failOnFlaky = false
    public var shuffleSwiftTestingTests = false
    /// The conditions the runs take in turn (`--nod-modes`).
    public var nodModes: [NODMode] = NODMode.defaults
    /// `--verify-fixes`: apply each proposed fix to a copy of the package, rebuild, rerun the failing order.
    public var verifyFixes = false
    public var buildArguments: [String] = []
    /// The first words of every reproduction command (`testscope flaky --package-path …` as the user typed it).
    public var commandPrefix = "testscope flaky"
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }
}

extension FlakyRequest {
    /// `--order`'s test ids: separated by commas, blanks around them ignored.
    public static func orderIDs(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `testscope flaky [--package-path P] [--scratch-path S] [--shuffle-swift-testing-tests] [-c C] [--filter …]
    /// [--skip …]`, the first words of every reproduction command: the paths as the user typed them
    /// (`packagePath`, `scratchPath`), not resolved; a replay writes no report, so `--output` is left out.
    public func reproductionPrefix(packagePath: String, scratchPath: String?) -> String {
        var parts = ["testscope", "flaky"]
        if packagePath != "." { parts += ["--package-path", Reproduction.quote(packagePath)] }
        if let scratchPath { parts += ["--scratch-path", Reproduction.quote(scratchPath)] }
        if shuffleSwiftTestingTests { parts.append("--shuffle-swift-testing-tests") }
        if let configuration = selection.configuration { parts += ["-c", configuration] }
        for filter in selection.filters { parts += ["--filter", Reproduction.quote(filter)] }
        for skip in selection.skips { parts += ["--skip", Reproduction.quote(skip)] }
        return parts.joined(separator: " ")
    }
}

/// A value the command line gave that the request cannot take (exit 64); the message names the option.
public struct UsageError: LocalizedError, ClassifiedError, Equatable, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var errorDescription: String? { message }
    public var errorClass: ErrorClass { .usage }
}
