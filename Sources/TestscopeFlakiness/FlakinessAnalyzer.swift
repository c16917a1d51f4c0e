import Foundation
import TestscopeTestResults

/// Runs an order and returns what every test did (the real one is `OrderExecutor`; tests use a model).
package protocol OrderRunning: Sendable {
    func run(_ order: [String]) throws -> ExecutedOrder
}

extension OrderExecutor: OrderRunning {
    package func run(_ order: [String]) throws -> ExecutedOrder { try execute(order) }
}

/// Limits of the confirmation and culprit search.
package struct AnalysisSettings: Sendable {
    /// How often a failing prefix, a passing prefix, the test alone and a minimal order are rerun.
    package var confirmations: Int
    /// Orders one test's analysis may run at most.
    package var runBudget: Int
    /// Polluter (or setter) groups searched for at most.
    package var maxGroups: Int

    package init(confirmations: Int = 3, runBudget: Int = 80, maxGroups: Int = 4) {
        self.confirmations = confirmations
        self.runBudget = runBudget
        self.maxGroups = maxGroups
    }
}

/// A test to classify: its id, library and how it was run.
package struct AnalyzedTest: Sendable {
    package var id: String
    package var framework: TestFramework
    package var method: DetectionMethod

    package init(id: String, framework: TestFramework, method: DetectionMethod) {
        self.id = id
        self.framework = framework
        self.method = method
    }
}

/// Classifies every test from the detection runs. A test that both passed and failed is confirmed
/// (iDFlakies): its failing and its passing prefix are rerun, and it is run alone; a prefix that both
/// passes and fails makes it NOD. A victim's polluters are found by delta debugging over its failing
/// prefixes (each group removed in turn, so several polluters are all found), a brittle test's setters
/// over its passing prefixes; a cleaner is looked for between a polluter and its victim.
package struct FlakinessAnalyzer: Sendable {
    package var runner: OrderRunning
    package var settings: AnalysisSettings
    /// The default order, where a cleaner is looked for when no run shows one.
    package var defaultOrder: [String]

    package init(runner: OrderRunning, settings: AnalysisSettings = AnalysisSettings(), defaultOrder: [String]) {
        self.runner = runner
        self.settings = settings
        self.defaultOrder = defaultOrder
    }

    /// One finding per test, in the order of `tests`; candidates are analysed on up to `jobs` threads.
    package func analyze(_ tests: [AnalyzedTest], executions: [ExecutedOrder], jobs: Int) throws -> [TestFinding] {
        try AdaptivePool.map(tests.count, jobs: jobs) { index in
            var analysis = CandidateAnalysis(test: tests[index], executions: executions, analyzer: self)
            return try analysis.run()
        }
    }
}

/// The analysis of one test (sequential: each step depends on the last).
struct CandidateAnalysis {
    let test: AnalyzedTest
    let executions: [ExecutedOrder]
    let analyzer: FlakinessAnalyzer
    var finding: TestFinding
    /// Every order run for this test, with the result (for cleaner evidence).
    var seen: [ExecutedOrder]
    /// Verdicts of orders already run, once the test has shown itself deterministic.
    var known: [[String]: Verdict] = [:]

    init(test: AnalyzedTest, executions: [ExecutedOrder], analyzer: FlakinessAnalyzer) {
        self.test = test
        self.executions = executions
        self.analyzer = analyzer
        self.seen = executions
        let verdicts = executions.map { $0.verdict(test.id) }
        let failures = executions.enumerated().compactMap { index, execution -> (run: Int, result: TestCaseResult)? in
            guard let result = execution.results[test.id], Verdict(result.outcome) == .fail else { return nil }
            return (index, result)
        }
        finding = TestFinding(id: test.id, framework: test.framework, classification: .stable, method: test.method,
                              verdicts: verdicts, failures: failures)
    }

    var id: String { test.id }
    var c: Int { max(1, analyzer.settings.confirmations) }

    mutating func run() throws -> TestFinding {
        let allFails = finding.verdicts.indices.filter { finding.verdicts[$0] == .fail }
        let allPasses = finding.verdicts.indices.filter { finding.verdicts[$0] == .pass }
        if allFails.isEmpty && allPasses.isEmpty { return classified(.skipped) }
        if allFails.isEmpty { return classified(.stable) }
        if allPasses.isEmpty { return classified(.consistentFailure) }
        if test.method == .repetition {
            finding.note = "Swift Testing repetition: the same default run passed and failed; its order could not be controlled"
            return classified(.nod)
        }
        // A parallel run keeps no order among Swift Testing tests (XCTest's still run one at a time, in
        // order): their outcomes there say the test is flaky, never that the order decides.
        let (framework, executions) = (test.framework, executions)
        let ordered = { (run: Int) in framework == .xctest || executions[run].mode.keepsOrder }
        let fails = allFails.filter(ordered)
        let passes = allPasses.filter(ordered)
        if fails.isEmpty || passes.isEmpty {
            let runs = (fails.isEmpty ? allFails : allPasses).filter { !ordered($0) }
            finding.note = (fails.isEmpty ? "failed only" : "passed only") + " when Swift Testing ran its tests in parallel (run"
                + (runs.count == 1 ? " " : "s ") + runs.map(String.init).joined(separator: ", ") + ")"
            // What ran at once with it is what it raced: its reproduction runs them together again.
            if fails.isEmpty, let run = runs.first { finding.failingOrder = executions[run].processes.first { $0.contains(id) } }
            return classified(.nod)
        }
        // The same in-process prefix with both outcomes: NOD without another run.
        var byPrefix: [[String]: (run: Int, verdict: Verdict)] = [:]
        for run in fails + passes {
            let prefix = executions[run].prefix(of: id) ?? []
            if let other = byPrefix[prefix], other.verdict != finding.verdicts[run] {
                finding.evidence.append(EvidenceStep(label: "same prefix in runs \(min(other.run, run)) and \(max(other.run, run))",
                                                     order: prefix + [id], verdicts: [other.verdict, finding.verdicts[run]!]))
                return classified(.nod)
            }
            byPrefix[prefix] = (run, finding.verdicts[run]!)
        }
        // Confirmation: the failing prefix must fail again, the passing prefix pass again.
        let failingPrefix = executions[fails[0]].prefix(of: id) ?? []
        let passingPrefix = executions[passes[0]].prefix(of: id) ?? []
        guard let failing = try repeated(failingPrefix + [id], label: "failing prefix of run \(fails[0]), rerun") else { return budgetSpent() }
        guard !failing.isEmpty else { return unconfirmed("failing prefix of run \(fails[0])") }
        guard failing.allSatisfy({ $0 == .fail }) else { return classified(.nod) }
        guard let passing = try repeated(passingPrefix + [id], label: "passing prefix of run \(passes[0]), rerun") else { return budgetSpent() }
        guard !passing.isEmpty else { return unconfirmed("passing prefix of run \(passes[0])") }
        guard passing.allSatisfy({ $0 == .pass }) else { return classified(.nod) }
        guard let alone = try repeated([id], label: "alone") else { return budgetSpent() }
        guard !alone.isEmpty else { return unconfirmed("run alone") }
        guard Set(alone).count == 1, alone[0] != .skip else { return classified(.nod) }
        known[failingPrefix + [id]] = .fail
        known[passingPrefix + [id]] = .pass
        known[[id]] = alone[0]
        return alone[0] == .pass ? try culprits(in: fails, wanted: .fail) : try culprits(in: passes, wanted: .pass)
    }

    /// The tests that decide this one, from the prefixes of `runs`: a victim (passes alone) fails after
    /// its polluters, so they are searched for in failing prefixes (`wanted` .fail), and a cleaner between
    /// them and it; a brittle test (fails alone) passes after its state-setters, searched for in passing
    /// prefixes (`wanted` .pass). One search, so that both kinds are confirmed by the same rules.
    mutating func culprits(in runs: [Int], wanted: Verdict) throws -> TestFinding {
        let victim = wanted == .fail
        var prefixes: [[String]] = []
        for run in runs {
            let prefix = executions[run].prefix(of: id) ?? []
            if !prefix.isEmpty, !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        let groups = try culpritGroups(in: prefixes, wanted: wanted)
        guard let first = groups.first else {
            let missed = victim ? "no failing prefix failed again" : "no passing prefix passed again"
            finding.note = finding.note ?? missed + " during the search"
            return classified(.nod)
        }
        let label = victim ? "minimal order (polluter, victim)" : "minimal order (setter, brittle)"
        guard let verified = try repeated(first + [id], label: label) else { return budgetSpent() }
        guard !verified.isEmpty else { return unconfirmed(label) }
        guard verified.allSatisfy({ $0 == wanted }) else { return classified(.nod) }
        guard victim else {
            finding.setterGroups = groups
            (finding.failingOrder, finding.passingOrder) = ([id], first + [id])
            return classified(.odBrittle)
        }
        finding.polluterGroups = groups
        (finding.failingOrder, finding.passingOrder) = (first + [id], [id])
        for group in groups {
            for cleaner in try cleaners(after: group) where !finding.cleaners.contains(cleaner) { finding.cleaners.append(cleaner) }
        }
        return classified(.odVictim)
    }

    /// Groups of tests that give the test `wanted` when run before it: each prefix is minimized, the
    /// group found is removed, and what is left is checked again, until it no longer gives `wanted`.
    mutating func culpritGroups(in prefixes: [[String]], wanted: Verdict) throws -> [[String]] {
        var groups: [[String]] = []
        for prefix in prefixes {
            var candidates = prefix.filter { test in !groups.contains { $0.contains(test) } }
            while groups.count < analyzer.settings.maxGroups, !candidates.isEmpty {
                guard let verdict = try verdict(candidates + [id]) else { note("the run budget was spent during the search"); return groups }
                guard verdict == wanted else { break }
                let start = candidates
                let (group, complete) = try DeltaDebugging.minimize(start) { subset in
                    try self.verdict(subset + [self.id]).map { $0 == wanted }
                }
                groups.append(group)
                if !complete { note("the run budget was spent before the search ended; the group may not be minimal"); return groups }
                candidates.removeAll { group.contains($0) }
            }
            if groups.count >= analyzer.settings.maxGroups { note("stopped after \(groups.count) groups"); break }
        }
        return groups
    }

    /// Tests that make the victim pass when run between `group` and it: from a run that shows it, else
    /// by probing the other tests at once.
    mutating func cleaners(after group: [String]) throws -> [String] {
        let polluters = Set(finding.polluterGroups.flatMap { $0 } + group)
        var candidateLists: [[String]] = []
        for execution in seen where execution.verdict(id) == .pass && (test.framework == .xctest || execution.mode.keepsOrder) {
            guard let prefix = execution.prefix(of: id), group.allSatisfy(prefix.contains) else { continue }
            let last = group.compactMap { prefix.firstIndex(of: $0) }.max()!
            let between = prefix[(last + 1)...].filter { !polluters.contains($0) }
            if !between.isEmpty, !candidateLists.contains(between) { candidateLists.append(between) }
        }
        let others = analyzer.defaultOrder.filter { $0 != id && !polluters.contains($0) }
        if !others.isEmpty, !candidateLists.contains(others) { candidateLists.append(others) }
        for candidates in candidateLists.prefix(3) {
            guard let cleaned = try passesInProcess(group + candidates, after: group) else { return [] }
            guard cleaned else { continue }
            let (cleaners, _) = try DeltaDebugging.minimize(candidates) { subset in
                try self.passesInProcess(group + subset, after: group)
            }
            return cleaners
        }
        return []
    }

    /// True when the test passes after `prefix` with `group` in its own process (a crash in between
    /// resets the state; that is not cleaning).
    mutating func passesInProcess(_ prefix: [String], after group: [String]) throws -> Bool? {
        guard let execution = try execute(prefix + [id]) else { return nil }
        guard execution.verdict(id) == .pass, let ran = execution.prefix(of: id) else { return false }
        return group.allSatisfy(ran.contains)
    }

    /// The test's verdict after `order` (cached once the test has shown itself deterministic).
    mutating func verdict(_ order: [String]) throws -> Verdict? {
        if let cached = known[order] { return cached }
        guard let execution = try execute(order) else { return nil }
        // Not run (its process ended before it): not this order's verdict, so not remembered as one.
        guard let verdict = execution.verdict(id) else { return .skip }
        known[order] = verdict
        return verdict
    }

    /// Runs `order` `c` times and records the step as evidence: the verdicts of the runs in which the
    /// test ran (none when it never did; nil when the budget is spent).
    mutating func repeated(_ order: [String], label: String) throws -> [Verdict]? {
        var verdicts: [Verdict] = []
        for _ in 0..<c {
            guard let execution = try execute(order) else { return nil }
            if let verdict = execution.verdict(id) { verdicts.append(verdict) }
        }
        let ran = verdicts.count == c ? "" : " (it ran in \(verdicts.count) of \(c))"
        finding.evidence.append(EvidenceStep(label: label + ran, order: order, verdicts: verdicts))
        return verdicts
    }

    /// A test whose confirmation runs never ran it: NOD by the detection runs it did run in (it passed
    /// and failed there), with a note that the step could not be checked.
    mutating func unconfirmed(_ step: String) -> TestFinding {
        note("not confirmed: the test did not run in the reruns of the \(step) (its process ended before it)")
        return classified(.nod)
    }

    mutating func execute(_ order: [String]) throws -> ExecutedOrder? {
        guard finding.analysisRuns < analyzer.settings.runBudget else { return nil }
        finding.analysisRuns += 1
        let execution = try analyzer.runner.run(order)
        seen.append(execution)
        return execution
    }

    mutating func note(_ text: String) { if finding.note == nil { finding.note = text } }

    mutating func budgetSpent() -> TestFinding {
        note("the run budget (\(analyzer.settings.runBudget) orders) was spent before the test could be confirmed")
        return classified(.nod)
    }

    mutating func classified(_ classification: FlakyClassification) -> TestFinding {
        finding.classification = classification
        return finding
    }
}
