import Foundation

/// What a history says, computed on read and explainable (every verdict carries its reason), with the
/// rules of ci-formats.md G: flip rate = flips ÷ (runs − 1) (Apple's ICSE-SEIP 2020 measure);
/// pass and fail on the same code (tree, else commit) is the strongest signal (BuildPulse, Buildkite,
/// Mergify, Datadog); broken only when nothing points to flakiness (Mergify); skipped runs say nothing and a lack of data
/// heals nothing (Mergify); nothing is called flaky on fewer than `minimumSample` runs (Trunk).
package struct HistoryAnalysis: Sendable {
    /// Pass/fail executions a test needs before it can be called flaky (docs/history.md).
    package static let minimumSample = 5
    /// A flip rate from which a test with enough runs is flaky (5 flips in 30 runs is 0.17, buildbutler's default).
    package static let flakyFlipRate = 0.15
    /// Consecutive failures at the end of the timeline that make a test broken.
    package static let brokenStreak = 3
    /// "Recently": the last this many runs of the selection.
    package static let recentRuns = 5
    /// Slower: the recent median duration at least this factor times the earlier one, and 50 ms more.
    package static let slowerFactor = 1.5

    /// A test's verdict, most serious first.
    package enum State: String, Sendable, Comparable {
        case broken, flaky, healthy
        /// Fewer than `minimumSample` pass/fail runs and not broken.
        case tooFewRuns = "too-few-runs"
        package static func < (a: State, b: State) -> Bool { a.rank < b.rank }
        var rank: Int { [.broken: 0, .flaky: 1, .healthy: 2, .tooFewRuns: 3][self]! }
    }

    /// One test across the selected runs.
    package struct TestStats: Sendable {
        package var test: String
        /// Pass/fail executions (skipped ones are not counted) and their failures.
        package var runs: Int
        package var failures: Int
        package var flips: Int
        /// flips ÷ (runs − 1); nil below two runs.
        package var flipRate: Double? { runs > 1 ? Double(flips) / Double(runs - 1) : nil }
        /// Trees (or commits) on which the test both passed and failed.
        package var sameCodeDisagreements: Int
        /// Median durations of the earlier and of the last `recentRuns` executions (seconds).
        package var earlierDuration: Double?
        package var recentDuration: Double?
        /// Durations, oldest first (one per execution that had one).
        package var durations: [Double]
        /// Outcomes oldest first (true passed, false failed; skipped left out).
        package var timeline: [Bool]
        package var state: State
        package var reason: String
        /// The state on the runs before the recent ones.
        package var earlierState: State
        package var lastFailure: String?

        package var becameFlaky: Bool { state == .flaky && earlierState != .flaky && earlierState != .broken }
        package var becameBroken: Bool { state == .broken && earlierState != .broken }
        package var becameSlower: Bool {
            guard let earlier = earlierDuration, let recent = recentDuration else { return false }
            return recent >= earlier * HistoryAnalysis.slowerFactor && recent - earlier >= 0.05
        }
    }

    /// Line coverage of one run.
    package struct CoveragePoint: Sendable {
        package var run: String
        package var date: Date
        package var percent: Double
    }

    package var runs: Int
    package var tests: [TestStats]
    package var coverage: [CoveragePoint]

    package init(_ records: [HistoryRecord]) {
        runs = records.count
        coverage = records.compactMap { r in r.run.lines?.percent.map { CoveragePoint(run: r.run.uuid, date: r.run.startedAt, percent: $0) } }
        let recentStart = max(0, records.count - Self.recentRuns)
        var byTest: [String: [(run: Int, code: String, execution: HistoryExecution)]] = [:]
        for (index, record) in records.enumerated() {
            for e in record.executions { byTest[e.test, default: []].append((index, record.run.codeKey ?? "run " + record.run.uuid, e)) }
        }
        tests = byTest.map { test, entries in Self.stats(test, entries, recentStart: recentStart) }
            .sorted { ($0.state, -($0.flipRate ?? 0), -$0.failures, $0.test) < ($1.state, -($1.flipRate ?? 0), -$1.failures, $1.test) }
    }

    static func stats(_ test: String, _ entries: [(run: Int, code: String, execution: HistoryExecution)], recentStart: Int) -> TestStats {
        let decided = entries.compactMap { e in e.execution.passed.map { (e.run, e.code, $0) } }
        let timeline = decided.map(\.2)
        let earlierTimeline = decided.filter { $0.0 < recentStart }.map(\.2)
        let disagreements = Dictionary(grouping: decided, by: \.1).values.filter { Set($0.map(\.2)).count == 2 }.count
        let earlierDisagreements = Dictionary(grouping: decided.filter { $0.0 < recentStart }, by: \.1).values.filter { Set($0.map(\.2)).count == 2 }.count
        let (state, reason) = verdict(timeline, disagreements: disagreements)
        let timed = entries.compactMap { e in e.execution.duration.map { (e.run, $0) } }
        let earlier = timed.filter { $0.0 < recentStart }.map(\.1), recent = timed.filter { $0.0 >= recentStart }.map(\.1)
        return TestStats(
            test: test, runs: timeline.count, failures: timeline.filter { !$0 }.count, flips: flips(timeline),
            sameCodeDisagreements: disagreements,
            earlierDuration: earlier.count >= 3 ? median(earlier) : nil, recentDuration: recent.count >= 3 ? median(recent) : nil,
            durations: timed.map(\.1), timeline: timeline, state: state, reason: reason,
            earlierState: verdict(earlierTimeline, disagreements: earlierDisagreements).0,
            lastFailure: entries.last { $0.execution.passed == false }?.execution.message)
    }

    /// Flaky when the sample is large enough and something points to flakiness; else broken when the
    /// last runs all failed (Mergify: broken = fails and nothing points to flakiness); else healthy.
    static func verdict(_ timeline: [Bool], disagreements: Int) -> (State, String) {
        let streak = timeline.reversed().prefix { !$0 }.count
        if timeline.count >= minimumSample {
            let flipCount = flips(timeline)
            let rate = Double(flipCount) / Double(timeline.count - 1)
            if disagreements > 0 {
                return (.flaky, "passed and failed on the same code \(disagreements) time\(disagreements == 1 ? "" : "s")")
            }
            if flipCount >= 2, rate >= flakyFlipRate {
                return (.flaky, String(format: "flip rate %.2f (%d flips in %d runs)", rate, flipCount, timeline.count))
            }
        }
        if streak >= brokenStreak {
            return (.broken, "failed the last \(streak) run\(streak == 1 ? "" : "s")")
        }
        guard timeline.count >= minimumSample else {
            return (.tooFewRuns, "\(timeline.count) run\(timeline.count == 1 ? "" : "s") (fewer than \(minimumSample))")
        }
        return (.healthy, timeline.contains(false) ? "failures without flips or same-code disagreement" : "passed every run")
    }

    static func flips(_ timeline: [Bool]) -> Int { zip(timeline, timeline.dropFirst()).filter { $0 != $1 }.count }

    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    package var flaky: [TestStats] { tests.filter { $0.state == .flaky } }
    package var broken: [TestStats] { tests.filter { $0.state == .broken } }

    /// The quarantine file's lines (`testscope flaky --quarantine FILE`: one test id per line, `#` comments):
    /// the flaky tests, not the broken ones (a broken test needs a fix, not a quarantine).
    package var quarantineLines: [String] {
        var seen = Set<String>()
        return flaky.flatMap { stats -> [String] in
            // A parameterized case's key is `id [arguments]`; the quarantine names the test. The
            // reason goes on a comment line of its own (the file's lines are whole ids).
            let id = stats.test.range(of: " [").map { String(stats.test[..<$0.lowerBound]) } ?? stats.test
            return seen.insert(id).inserted ? ["# \(stats.reason)", id] : []
        }
    }
}
