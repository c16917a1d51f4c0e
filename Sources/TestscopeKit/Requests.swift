import Foundation
import TestscopeExecution
import TestscopeTestResults

/// `testscope run`: build the tests with coverage, run them, report coverage and results.
public struct RunRequest: Sendable {
    public var packageRoot: URL
    /// `-c`: debug or release.
    public var configuration: String?
    public var scratchPath: URL?
    /// SwiftPM's `--filter`/`--skip` regular expressions.
    public var filters: [String] = []
    public var skips: [String] = []
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
    /// entry point (into `.build/testscope-pertest` unless `scratchPath` is given).
    public var perTestCoverage = false
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }
}

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
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }

    /// Whether coverage inputs were given.
    public var hasCoverageInput: Bool { !exports.isEmpty || !profiles.isEmpty || buildPath != nil }
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
    public var filters: [String] = []
    public var skips: [String] = []
    /// Known flaky tests (one id per line): run and reported, never counted.
    public var quarantineFile: URL?
    public var failOnFlaky = false
    public var shuffleSwiftTestingTests = false
    public var scratchPath: URL?
    public var configuration: String?
    public var buildArguments: [String] = []
    /// The first words of every reproduction command (`testscope flaky --package-path …` as the user typed it).
    public var commandPrefix = "testscope flaky"
    public var settings: ReportSettings

    public init(packageRoot: URL, settings: ReportSettings = ReportSettings()) {
        self.packageRoot = packageRoot
        self.settings = settings
    }
}
