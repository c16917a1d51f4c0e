import Foundation
import TestscopeExecution

/// Which testing library produced a result.
public enum TestFramework: String, Sendable, Equatable, Codable {
    case xctest = "XCTest"
    case swiftTesting = "Swift Testing"
}

/// How a test ended.
public enum TestOutcome: String, Sendable, Equatable, Codable, CaseIterable {
    case passed, failed, skipped
    /// Passed with known issues only (Swift Testing `withKnownIssue`).
    case expectedFailure = "expected-failure"
    case crashed
    case timedOut = "timed-out"

    /// True for outcomes that fail a run.
    public var isFailure: Bool { self == .failed || self == .crashed || self == .timedOut }
}

/// A place in a source file.
public struct SourceLocation: Sendable, Equatable, Codable {
    public var file: String
    public var line: Int
    public var column: Int?

    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// One problem recorded by a test: an assertion, a thrown error, a known issue, a warning.
public struct TestIssue: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable {
        /// An assertion or expectation failed.
        case failure
        /// A thrown error or other unexpected failure.
        case error
        case knownIssue = "known-issue"
        case warning
    }

    public var kind: Kind
    public var message: String
    /// Further lines: expectation details, user comments.
    public var details: [String]
    public var location: SourceLocation?

    public init(kind: Kind, message: String, details: [String] = [], location: SourceLocation? = nil) {
        self.kind = kind
        self.message = message
        self.details = details
        self.location = location
    }

    /// True when the issue fails the test.
    public var isFailure: Bool { kind == .failure || kind == .error }
}

/// The results of an XCTest `measure` block.
public struct PerformanceMetric: Sendable, Equatable, Codable {
    public var name: String
    public var unit: String
    public var values: [Double]
    public var average: Double
    /// Relative standard deviation in percent.
    public var relativeStandardDeviation: Double
}

/// Why and where a test process died.
public struct CrashEvidence: Sendable, Equatable, Codable {
    /// The signal number, when known (4 = SIGILL, 11 = SIGSEGV, 9 = killed by Testscope's timeout).
    public var signal: Int?
    /// The `Fatal error: …` line of the Swift runtime.
    public var fatalError: String?
    /// `*** Program crashed: … ***`
    public var reason: String?
    /// Backtrace lines of the crashed thread that name user code (not system or thunk frames).
    public var frames: [String]
    /// The first user frame's location.
    public var location: SourceLocation?

    public init(signal: Int? = nil, fatalError: String? = nil, reason: String? = nil, frames: [String] = [], location: SourceLocation? = nil) {
        self.signal = signal
        self.fatalError = fatalError
        self.reason = reason
        self.frames = frames
        self.location = location
    }
}

/// The result of one test (or one case of a parameterized Swift Testing test).
public struct TestCaseResult: Sendable, Equatable, Codable {
    /// The specifier `swift test list` prints: `Module.Class/testMethod`, `Module.Suite/function()`.
    public var id: String
    public var framework: TestFramework
    public var module: String?
    /// The XCTestCase class or the Swift Testing suite path (`Outer.Inner`), nil for free functions.
    public var suite: String?
    /// `testMethod` or `function(arg:)`.
    public var name: String
    public var displayName: String?
    /// The arguments of a parameterized case, e.g. `value → 2`.
    public var arguments: String?
    public var outcome: TestOutcome
    public var skipReason: String?
    /// Seconds from the test's own start to its own end, when known. Swift Testing runs tests in
    /// parallel, so this includes the time the test waited for a thread of the pool (it is what
    /// Swift Testing itself prints: `passed after 0.607 seconds`); durations of parallel tests overlap.
    public var duration: Double?
    /// When the test (or the case) started, on the wall clock.
    public var startedAt: Date?
    public var issues: [TestIssue]
    /// Lines the test printed, when they can be attributed (serial XCTest).
    public var output: [String]
    public var metrics: [PerformanceMetric]
    public var crash: CrashEvidence?
    /// Where the test is declared (Swift Testing), or its first issue.
    public var location: SourceLocation?

    public init(id: String, framework: TestFramework, module: String?, suite: String?, name: String,
                displayName: String? = nil, arguments: String? = nil, outcome: TestOutcome, skipReason: String? = nil,
                duration: Double? = nil, startedAt: Date? = nil, issues: [TestIssue] = [], output: [String] = [],
                metrics: [PerformanceMetric] = [], crash: CrashEvidence? = nil, location: SourceLocation? = nil) {
        self.id = id
        self.framework = framework
        self.module = module
        self.suite = suite
        self.name = name
        self.displayName = displayName
        self.arguments = arguments
        self.outcome = outcome
        self.skipReason = skipReason
        self.duration = duration
        self.startedAt = startedAt
        self.issues = issues
        self.output = output
        self.metrics = metrics
        self.crash = crash
        self.location = location
    }

    /// `Module.Suite` (or the module for free functions): the JUnit classname.
    public var className: String {
        [module, suite].compactMap { $0 }.joined(separator: ".")
    }

    /// The name with the case's arguments: `doubles(value:) [value → 2]`.
    public var caseName: String { arguments.map { "\(name) [\($0)]" } ?? name }

    /// Where to point a user first: the first failing issue, else the crash, else the declaration.
    public var primaryLocation: SourceLocation? {
        issues.first(where: \.isFailure)?.location ?? crash?.location ?? location
    }
}

/// Everything known about the tests of one `testscope run` (or imported logs).
public struct TestRunResults: Sendable, Equatable {
    public var results: [TestCaseResult]
    /// How often the test binary was started again after a crash or a timeout.
    public var relaunches: Int
    /// Free-form facts for reports (toolchain, host, seed…).
    public var properties: [(name: String, value: String)]
    public var startedAt: Date?
    /// What was wrong with the inputs but did not stop the import (skipped lines of an event stream).
    public var warnings: [Diagnostic] = []
    /// `run` with a `TestSelection`: the tests it did not run, each with its skip (their results are skipped ones).
    public var notSelected: [(id: String, skip: TestSelection.Skip)] = []
    /// Each failing test's `FailureLabel`, by id (`run` with a failure labeler).
    public var failureLabels: [String: FailureLabel] = [:]
    /// Tests run again after a failure (`retryUntouched`): the failing results of their other attempts, by id
    /// (a test that passed in the end: every failed attempt; one that never did: the retries').
    public var otherAttempts: [String: [TestCaseResult]] = [:]
    /// `run --affected`: each recorded test's decision, run or skip, with the reason `--why` prints; with
    /// `--observe` every test ran and these say what the selection would have skipped.
    public var selectionDecisions: [String: SelectionDecision] = [:]
    /// What the run history says of each flaky test (`--history`): the evidence beside the retry's.
    public var flakyEvidence: [String: String] = [:]
    /// `--observe`: every test ran; `selectionDecisions` are what `--affected` would have done.
    public var observedSelection = false

    public init(results: [TestCaseResult] = [], relaunches: Int = 0, properties: [(name: String, value: String)] = [], startedAt: Date? = nil) {
        self.results = results
        self.relaunches = relaunches
        self.properties = properties
        self.startedAt = startedAt
    }

    public static func == (a: TestRunResults, b: TestRunResults) -> Bool {
        a.results == b.results && a.relaunches == b.relaunches && a.startedAt == b.startedAt
            && a.failureLabels == b.failureLabels && a.otherAttempts == b.otherAttempts
            && a.selectionDecisions == b.selectionDecisions && a.flakyEvidence == b.flakyEvidence && a.observedSelection == b.observedSelection
            && a.notSelected.map(\.id) == b.notSelected.map(\.id) && a.notSelected.map(\.skip) == b.notSelected.map(\.skip)
            && a.properties.map(\.name) == b.properties.map(\.name) && a.properties.map(\.value) == b.properties.map(\.value)
    }

    /// `--observe`'s line: what `--affected` would have skipped of this run, and whether any of it failed.
    public var observedSelectionLine: String? {
        guard observedSelection else { return nil }
        let skipped = results.filter { selectionDecisions[$0.id]?.selected == false }
        let ids = Set(skipped.map(\.id))
        let saved = skipped.reduce(0) { $0 + ($1.duration ?? 0) }
        let failed = Set(skipped.filter(\.outcome.isFailure).map(\.id)).sorted()
        let head = "observe: --affected would have skipped \(ids.count) of \(Set(results.map(\.id)).count) test(s) (about \(SelectionSkips.seconds(saved)))"
        return failed.isEmpty ? head + "; none of them failed"
            : head + "; \(failed.count) of them FAILED: " + failed.prefix(3).joined(separator: ", ") + (failed.count > 3 ? ", …" : "")
    }

    /// The run's wall time: from the first test's start to the last test's end (`wallTime(of:)`).
    public var wallTime: Double? { Self.wallTime(of: results) }

    /// Wall time of a group of tests, for JUnit's suite and run times: from the earliest start to the
    /// latest end (start + duration). Never a sum: parallel tests overlap (BigInt's 215 Swift Testing
    /// tests summed to 411 s in a 3.8 s run). When no result has a start time (a JUnit import), the
    /// sum of the durations is all there is.
    public static func wallTime(of results: [TestCaseResult]) -> Double? {
        var first: Date?, last: Date?
        for r in results {
            guard let start = r.startedAt else { continue }
            let end = start.addingTimeInterval(r.duration ?? 0)
            first = min(first ?? start, start)
            last = max(last ?? end, end)
        }
        if let first, let last { return last.timeIntervalSince(first) }
        let timed = results.compactMap(\.duration)
        return timed.isEmpty ? nil : timed.reduce(0, +)
    }

    /// True when Swift Testing's tests ran in parallel and most of them lasted about as long as their
    /// whole run: their end events waited for a thread (tests that block hold the pool's threads, one per
    /// core), so their durations measure the run, not the tests, and do not rank them. Recorded: all of
    /// BigInt's 211 tests started in the first 0.13 s and ended between 15.0 and 15.5 s of a 15.5 s run.
    /// Heuristic: at least 3 timed Swift Testing tests over at least 1 s of wall time, the median
    /// duration half the wall time or more.
    public var durationsMostlyWaiting: Bool {
        let timed = results.filter { $0.framework == .swiftTesting && $0.outcome != .skipped && $0.duration != nil }
        guard timed.count >= 3, let wall = Self.wallTime(of: timed), wall >= 1 else { return false }
        let sorted = timed.compactMap(\.duration).sorted()
        return sorted[sorted.count / 2] >= wall / 2
    }

    /// What to say beside the slowest tests when `durationsMostlyWaiting`.
    package static let waitingNote = "Swift Testing ran these tests in parallel and most of them lasted about as long as the whole run: a test's end waits for a thread while other tests hold the pool, so these times do not rank the tests. For each test's own time, run them one at a time: testscope run -- --no-parallel"

    public func count(_ outcome: TestOutcome) -> Int { results.filter { $0.outcome == outcome }.count }

    /// True when any test failed, crashed or timed out.
    public var hasFailures: Bool { results.contains { $0.outcome.isFailure } }

    /// True for a result that passed after a failed attempt of the same test (and case) in this run.
    public func isFlaky(_ result: TestCaseResult) -> Bool {
        !result.outcome.isFailure && result.outcome != .skipped
            && otherAttempts[result.id]?.contains { $0.arguments == result.arguments } == true
    }

    /// The results that passed on a retry.
    public var flaky: [TestCaseResult] { otherAttempts.isEmpty ? [] : results.filter(isFlaky) }

    /// `12 passed, 1 failed, 2 skipped` (+ crashed, timed out, expected failures, flaky when present).
    public var summaryLine: String {
        var parts = ["\(count(.passed)) passed", "\(count(.failed)) failed", "\(count(.skipped)) skipped"]
        if count(.expectedFailure) > 0 { parts.append("\(count(.expectedFailure)) expected failure\(count(.expectedFailure) == 1 ? "" : "s")") }
        if count(.crashed) > 0 { parts.append("\(count(.crashed)) crashed") }
        if count(.timedOut) > 0 { parts.append("\(count(.timedOut)) timed out") }
        if !flaky.isEmpty { parts.append("\(flaky.count) flaky") }
        return parts.joined(separator: ", ")
    }

    /// Adds results, replacing earlier results of the same test and case.
    public mutating func merge(_ more: [TestCaseResult]) {
        for result in more {
            if let index = results.firstIndex(where: { $0.id == result.id && $0.arguments == result.arguments && $0.framework == result.framework }) {
                results[index] = result
            } else {
                results.append(result)
            }
        }
    }
}
