import Foundation
import TestscopeRun
import TestscopeTestResults

/// A test's class in iDFlakies' vocabulary.
public enum FlakyClassification: String, Sendable, Equatable, CaseIterable {
    /// Passed in every run.
    case stable
    /// Failed (or crashed, or timed out) in every run it ran in.
    case consistentFailure = "consistent-failure"
    /// Order-dependent victim: passes alone (and in the default order), fails after a polluter.
    case odVictim = "od-victim"
    /// Order-dependent brittle test: fails alone or early, passes only after a state-setter.
    case odBrittle = "od-brittle"
    /// Not order-dependent: the same order prefix gave different results.
    case nod
    /// Skipped in every run (or never ran).
    case skipped

    /// Victims, brittle tests and NOD tests: the ones the gate counts.
    public var isFlaky: Bool { self == .odVictim || self == .odBrittle || self == .nod }
}

/// How a test's flakiness was looked for.
public enum DetectionMethod: String, Sendable, Equatable {
    /// In one process, in the run's order (XCTest through `XCTMain`, Swift Testing through its ABI entry point).
    case inProcessOrder = "in-process-order"
    /// Swift Testing without an ABI entry point: the same default run repeated (order-dependence cannot be told from NOD).
    case repetition
}

/// One step of the evidence for a classification: an order that was run and what the test did in it.
public struct EvidenceStep: Sendable, Equatable {
    /// What the step checks, e.g. `failing prefix rerun`, `alone`, `minimal order`.
    public var label: String
    /// The order run (the test itself last).
    public var order: [String]
    /// The test's verdict in each repetition of the order.
    public var verdicts: [Verdict]

    public init(label: String, order: [String], verdicts: [Verdict]) {
        self.label = label
        self.order = order
        self.verdicts = verdicts
    }
}

/// What Testscope found out about one test.
public struct TestFinding: Sendable {
    /// As `swift test list` prints it.
    public var id: String
    public var framework: TestFramework
    public var classification: FlakyClassification
    public var method: DetectionMethod
    /// The verdict in each detection run (nil: did not run).
    public var verdicts: [Verdict?]
    /// Results of the detection runs in which the test failed, by run index.
    public var failures: [(run: Int, result: TestCaseResult)]
    /// Polluter groups of a victim (usually one test each); a group is needed as a whole.
    public var polluterGroups: [[String]] = []
    /// State-setter groups of a brittle test.
    public var setterGroups: [[String]] = []
    /// Tests that, run between a polluter and its victim, make the victim pass.
    public var cleaners: [String] = []
    /// The shortest order that shows the failure (victim: polluters then the test; brittle: the test alone).
    public var failingOrder: [String]?
    /// An order in which the test passes (brittle: setters then the test).
    public var passingOrder: [String]?
    public var evidence: [EvidenceStep] = []
    /// Orders run while confirming and minimizing.
    public var analysisRuns = 0
    /// Why a search stopped early, or what is unusual.
    public var note: String?
    public var quarantined = false
    /// What the pair (polluter → victim, setter → brittle) shares, ranked (`SharedStateSearch`); nil: not looked for.
    public var sharedState: SharedStateFinding?
    /// A patch that should make the failing order pass, and whether a rerun showed it does.
    public var fix: ProposedFix?

    public init(id: String, framework: TestFramework, classification: FlakyClassification, method: DetectionMethod,
                verdicts: [Verdict?], failures: [(run: Int, result: TestCaseResult)] = []) {
        self.id = id
        self.framework = framework
        self.classification = classification
        self.method = method
        self.verdicts = verdicts
        self.failures = failures
    }

    public var polluters: [String] { Self.flatten(polluterGroups) }
    public var setters: [String] { Self.flatten(setterGroups) }
    /// Runs it ran in, and those it failed in.
    public var runs: Int { verdicts.filter { $0 == .pass || $0 == .fail }.count }
    public var failedRuns: Int { verdicts.filter { $0 == .fail }.count }

    /// Of the runs it ran in, the first it failed in (1 = the first), nil when it never failed: how soon a
    /// flaky test shows itself.
    public var runsToFirstFailure: Int? {
        let ran = verdicts.compactMap { $0 }.filter { $0 == .pass || $0 == .fail }
        return ran.firstIndex(of: .fail).map { $0 + 1 }
    }

    /// For a test that never failed: the failure rate that `runs` passes rule out at 95 % confidence (one-sided,
    /// exact: the rate p at which passing every run has probability 5 %, 1 − 0.05^(1/n), about 3/n); nil otherwise.
    public var failureRateBound: Double? {
        guard failedRuns == 0, runs > 0 else { return nil }
        return 1 - pow(0.05, 1 / Double(runs))
    }

    /// `passed 40 times under 3 modes: < 7.2 % failure rate at 95 %`, for a test that never failed (`modes`: the
    /// NOD mode of each detection run); nil otherwise.
    public func confidence(modes: [NODMode] = []) -> String? {
        let under = Set(verdicts.indices.filter { verdicts[$0] == .pass && $0 < modes.count }.map { modes[$0] }).count
        return failureRateBound.map {
            "passed \(runs) time\(runs == 1 ? "" : "s")\(under > 1 ? " under \(under) modes" : ""): < \(Self.percent($0)) failure rate at 95 %"
        }
    }

    /// `7.2 %`, `0.35 %`: two significant digits.
    static func percent(_ rate: Double) -> String {
        let value = rate * 100
        return (value >= 10 ? String(format: "%.0f", value) : value >= 1 ? String(format: "%.1f", value) : String(format: "%.2f", value)) + " %"
    }

    static func flatten(_ groups: [[String]]) -> [String] {
        var seen = Set<String>()
        return groups.flatMap { $0 }.filter { seen.insert($0).inserted }
    }
}

/// What one detection run gave, counted: the progress line and the reports show it (from the data,
/// never by re-reading the line).
public struct RunTally: Sendable, Equatable {
    public var passed: Int
    public var failed: Int
    public var skipped: Int
    public var relaunches: Int
    /// Tests of the order that never ran (a process that ended early and could not be relaunched for them).
    public var notRun: Int
    public var seconds: Double

    public init(_ execution: ExecutedOrder) {
        let verdicts = execution.results.values.map { Verdict($0.outcome) }
        passed = verdicts.filter { $0 == .pass }.count
        failed = verdicts.filter { $0 == .fail }.count
        skipped = verdicts.filter { $0 == .skip }.count
        relaunches = execution.relaunches
        notRun = execution.notRun.count
        seconds = execution.seconds
    }

    /// `3 passed`, `1 failed`, then `2 skipped`, `4 not run` and `1 relaunch` when there are any.
    public var counts: [String] {
        var parts = ["\(passed) passed", "\(failed) failed"]
        if skipped > 0 { parts.append("\(skipped) skipped") }
        if notRun > 0 { parts.append("\(notRun) not run") }
        if relaunches > 0 { parts.append("\(relaunches) relaunch\(relaunches == 1 ? "" : "es")") }
        return parts
    }

    /// `0.52 s`.
    public var time: String { String(format: "%.2f", seconds) + " s" }
}

/// Everything `testscope flaky` found: the plan, every detection run, and each test's finding.
public struct FlakyReport: Sendable {
    public var seed: UInt64
    public var orders: [PlannedOrder]
    public var executions: [ExecutedOrder]
    public var findings: [TestFinding]
    /// The most detection runs that ran at the same time.
    public var jobs: Int
    /// The runs started at once, and the most allowed while the CPUs sit idle (nil: `--jobs` fixed it).
    public var jobLimits: (start: Int, max: Int?)?
    public var packageRoot: String
    public var binary: String
    public var swiftTestingMethod: DetectionMethod
    public var startedAt: Date
    /// Wall seconds of the build, the detection runs and the analysis.
    public var buildSeconds: Double = 0
    public var detectionSeconds: Double = 0
    public var analysisSeconds: Double = 0
    /// Wall seconds of `--verify-fixes` (the package's copy built and each fix's rerun); 0 without it.
    public var fixSeconds: Double = 0
    /// Of `analysisSeconds`, the shared-state search's (its orders with per-test coverage, the index, the mapping).
    public var stateSearchSeconds: Double = 0
    /// `testscope flaky …` and the raw binary prefix for reproduction commands.
    public var reproduction: Reproduction
    /// The NOD modes the runs took in turn.
    public var modes: [NODMode] = NODMode.defaults

    public init(seed: UInt64, orders: [PlannedOrder], executions: [ExecutedOrder], findings: [TestFinding], jobs: Int,
                packageRoot: String, binary: String, swiftTestingMethod: DetectionMethod, startedAt: Date, reproduction: Reproduction) {
        self.seed = seed
        self.orders = orders
        self.executions = executions
        self.findings = findings
        self.jobs = jobs
        self.packageRoot = packageRoot
        self.binary = binary
        self.swiftTestingMethod = swiftTestingMethod
        self.startedAt = startedAt
        self.reproduction = reproduction
    }

    /// `2 jobs (up to 8 while the CPUs sit idle)`, or `2 jobs` for a fixed `--jobs`: the terminal's words and the HTML's.
    package static func jobsText(start: Int, max: Int?) -> String {
        "\(start) job\(start == 1 ? "" : "s")" + (max.map { " (up to \($0) while the CPUs sit idle)" } ?? "")
    }

    /// Each detection run's counts, in the order of `orders`.
    public var tallies: [RunTally] { executions.map(RunTally.init) }

    public func count(_ classification: FlakyClassification) -> Int { findings.filter { $0.classification == classification }.count }

    /// Flaky tests that are not quarantined (what `--fail-on-flaky` counts).
    public var gatingFlaky: [TestFinding] { findings.filter { $0.classification.isFlaky && !$0.quarantined } }
    /// Consistently failing tests that are not quarantined.
    public var gatingFailures: [TestFinding] { findings.filter { $0.classification == .consistentFailure && !$0.quarantined } }

    /// What the stable tests' passes rule out: the bound of the one that ran least (`passed at least 12 times
    /// each: < 22 % failure rate at 95 %`); nil without stable tests.
    public var stableConfidence: String? {
        guard let least = findings.filter({ $0.classification == .stable && $0.runs > 0 }).min(by: { $0.runs < $1.runs }),
              let bound = least.failureRateBound else { return nil }
        let ran = modes.filter { mode in orders.contains { $0.mode == mode } }
        let under = ran.count > 1 ? " under \(ran.count) modes (\(ran.map(\.rawValue).joined(separator: ", ")))" : ""
        return "passed at least \(least.runs) time\(least.runs == 1 ? "" : "s") each\(under): < \(TestFinding.percent(bound)) failure rate at 95 % "
            + "(more --runs lower it)"
    }

    /// `3 stable, 2 od-victim, …` in the order of `FlakyClassification.allCases`, zero counts left out.
    public var summaryLine: String {
        FlakyClassification.allCases.compactMap { c in count(c) > 0 ? "\(count(c)) \(c.rawValue)" : nil }.joined(separator: ", ")
    }

    /// The reproduction commands of a finding (nil for stable and skipped tests).
    public func reproduce(_ finding: TestFinding) -> (testscope: String, binary: String)? {
        switch finding.classification {
        case .stable, .skipped: return nil
        case .nod:
            let order = finding.failingOrder ?? [finding.id]
            // Failures only under some modes (a timing test under stress): the reruns take those modes.
            let failing = Set(finding.verdicts.indices.filter { finding.verdicts[$0] == .fail && $0 < orders.count }.map { orders[$0].mode })
            let modes = failing.contains(.plain) ? [] : modes.filter(failing.contains)
            return (reproduction.testscope(order: order, repeat: 20, modes: modes), reproduction.binary(order: order))
        default:
            let order = finding.failingOrder ?? [finding.id]
            return (reproduction.testscope(order: order), reproduction.binary(order: order))
        }
    }
}

/// Builds the one-line commands that reproduce an order: `testscope flaky … --order 'A,B'` and the raw
/// binary `TESTSCOPE_ORDER='A,B' <binary>`.
public struct Reproduction: Sendable {
    /// `testscope flaky --package-path DIR` (with `--scratch-path`/`-c` when they were given).
    public var testscopePrefix: String
    /// The binary as the user can run it from the current directory.
    public var binaryPath: String

    public init(testscopePrefix: String, binaryPath: String) {
        self.testscopePrefix = testscopePrefix
        self.binaryPath = binaryPath
    }

    /// With `modes`, the repetitions take them in turn (`--nod-modes`).
    public func testscope(order: [String], repeat count: Int = 1, modes: [NODMode] = []) -> String {
        testscopePrefix + " --order " + Self.quote(order.joined(separator: ",")) + (count > 1 ? " --repeat \(count)" : "")
            + (modes.isEmpty ? "" : " --nod-modes " + modes.map(\.rawValue).joined(separator: ","))
    }

    public func binary(order: [String]) -> String {
        "\(EntryPointSource.orderVariable)=" + Self.quote(order.joined(separator: ",")) + " " + Self.quote(binaryPath)
    }

    /// POSIX shell single quotes (only when needed).
    public static func quote(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-,:=+@".unicodeScalars.contains($0)
        }
        if safe && !text.isEmpty { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A place in the package's source: `Sources/App/Flags.swift:12`.
public struct SourceSite: Sendable, Equatable, Hashable {
    /// Relative to the package root.
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var text: String { "\(file):\(line)" }
}

/// One piece of process-wide state that an order-dependent pair shares, named as a user writes it.
public struct SharedStateItem: Sendable, Equatable {
    /// What kind of state: the reset a fix needs depends on it.
    public enum Kind: String, Sendable, Equatable {
        case global, staticProperty = "static", singleton, userDefaults = "user-defaults", environment, file
    }
    /// `retryLimit`, `FeatureFlags.beta`, `PluginRegistry.shared.names`, `UserDefaults.standard["onboarded"]`,
    /// `environment variable APP_REGION`, `file NSTemporaryDirectory() + "x.lock"`.
    public var name: String
    public var kind: Kind
    /// Where the first test of the pair (polluter, setter) changes it, as executed.
    public var writeSites: [SourceSite]
    /// Where the second (victim, brittle) reads it, as executed.
    public var readSites: [SourceSite]
    /// A statement that puts it back as the process started (`FeatureFlags.beta = false`), when one is known.
    public var resetStatement: String?

    public init(name: String, kind: Kind, writeSites: [SourceSite], readSites: [SourceSite], resetStatement: String? = nil) {
        self.name = name
        self.kind = kind
        self.writeSites = writeSites
        self.readSites = readSites
        self.resetStatement = resetStatement
    }

    /// Files outlive the process: rerunning in a new process does not reset them.
    public var isOutsideProcess: Bool { kind == .file }
}

/// The shared-state search's answer for one pair.
public struct SharedStateFinding: Sendable, Equatable {
    /// The items, most likely first (at most 3); empty when the cause is outside the process or not found.
    public var items: [SharedStateItem]
    /// True when the evidence points outside the process (a file, a server): no in-process item is named.
    public var outsideProcess: Bool
    /// What the state outside the process is, when known (`file NSTemporaryDirectory() + "x.lock"`).
    public var outsideEvidence: [SharedStateItem]
    /// Why nothing was found, when nothing was.
    public var note: String?

    public init(items: [SharedStateItem], outsideProcess: Bool = false, outsideEvidence: [SharedStateItem] = [], note: String? = nil) {
        self.items = items
        self.outsideProcess = outsideProcess
        self.outsideEvidence = outsideEvidence
        self.note = note
    }
}

/// A proposed fix of an order-dependent test: a unified diff, where it came from, and what the rerun showed.
public struct ProposedFix: Sendable, Equatable {
    /// Where the patch's statements come from.
    public enum Source: String, Sendable, Equatable {
        /// The cleaner's statements (iFixFlakies), or the state-setter's for a brittle test.
        case cleaner, setter
        /// A reset of the shared state found (`SharedStateItem.resetStatement`).
        case stateReset = "state-reset"
    }
    /// What the rerun of the failing order with the patch applied showed.
    public enum Verification: Sendable, Equatable {
        /// `--verify-fixes` was not given.
        case notRun
        /// Built, and the failing order passed every time.
        case verified(runs: Int)
        /// Why not: the build failed, or the order still failed.
        case notVerified(String)
    }
    public var source: Source
    /// Relative to the package root.
    public var file: String
    /// A unified diff (`--- a/… +++ b/… @@ …`) that `git apply` / `patch -p1` accept in the package root.
    public var diff: String
    public var verification: Verification

    public init(source: Source, file: String, diff: String, verification: Verification = .notRun) {
        self.source = source
        self.file = file
        self.diff = diff
        self.verification = verification
    }
}
