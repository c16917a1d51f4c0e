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
        /// The median of every duration (seconds); nil when no execution had one.
        package var medianDuration: Double?
        /// The last `HistoryAnalysis.pointRuns` runs of the test, oldest first (the sparklines and the slowest tests' chart).
        package var points: [HistoryTimelinePoint]
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

    /// A test's points kept for the pages: the last this many runs (history.html charts the last 100 runs).
    package static let pointRuns = 100

    /// The selected runs, oldest first, with their findings (their executions are not kept: the tests' figures say them).
    package var runs: [HistoryRecord]
    package var tests: [TestStats]
    package var coverage: [CoveragePoint]

    /// The analysis of `runs` (oldest first; their executions are not read) whose executions `readTests`
    /// hands over one test at a time (rows in any order; `HistoryTestRow.run` is the place in `runs`), so
    /// that memory holds the runs and one test's executions, never the whole history (`HistoryStore.analysis`).
    package init(runs: [HistoryRecord], readTests: (_ consume: (String, [HistoryTestRow]) -> Void) throws -> Void) rethrows {
        self.runs = runs.map { HistoryRecord(run: $0.run, coverageFiles: $0.coverageFiles, findings: $0.findings) }
        coverage = runs.compactMap { r in r.run.lines?.percent.map { CoveragePoint(run: r.run.uuid, date: r.run.startedAt, percent: $0) } }
        // Same-code disagreements compare runs by their code: each run's tree (else commit, else itself) as a number.
        var codeNumbers: [String: Int] = [:]
        let codes = runs.map { r in
            let key = r.run.codeKey ?? "run " + r.run.uuid
            if let n = codeNumbers[key] { return n }
            codeNumbers[key] = codeNumbers.count
            return codeNumbers.count - 1
        }
        let context = Context(runs: runs.map(\.run), codes: codes, codeCount: codeNumbers.count, recentStart: max(0, runs.count - Self.recentRuns))
        var tests: [TestStats] = []
        try readTests { test, rows in tests.append(Self.stats(test, rows, context)) }
        self.tests = tests.sorted { ($0.state, -($0.flipRate ?? 0), -$0.failures, $0.test) < ($1.state, -($1.flipRate ?? 0), -$1.failures, $1.test) }
    }

    /// The analysis of records in memory (their executions grouped by test, then as above).
    package init(_ records: [HistoryRecord]) {
        var byTest: [String: [HistoryTestRow]] = [:]
        for (index, record) in records.enumerated() {
            for e in record.executions {
                byTest[e.test, default: []].append(HistoryTestRow(run: index, iteration: e.iteration, outcome: e.outcome, duration: e.duration, message: e.message))
            }
        }
        self.init(runs: records) { consume in byTest.forEach(consume) }
    }

    /// What every test's figures need of the runs.
    struct Context {
        var runs: [HistoryRun]
        /// Each run's code (tree, else commit) as a number below `codeCount`.
        var codes: [Int]
        var codeCount: Int
        var recentStart: Int

        /// The codes on which `decided` both passed and failed (a flag pair per code, not a dictionary:
        /// this runs for every test of every history read).
        func disagreements(_ decided: ArraySlice<(run: Int, passed: Bool)>) -> Int {
            var seen = [UInt8](repeating: 0, count: codeCount)
            var both = 0
            for e in decided {
                let code = codes[e.run], before = seen[code]
                seen[code] |= e.passed ? 1 : 2
                if before != 3 && seen[code] == 3 { both += 1 }
            }
            return both
        }
    }

    static func stats(_ test: String, _ unordered: [HistoryTestRow], _ context: Context) -> TestStats {
        // Oldest first; the stores hand most tests' rows in that order already (runs stored as they ran).
        let before = { (a: HistoryTestRow, b: HistoryTestRow) in (a.run, a.iteration) < (b.run, b.iteration) }
        let rows = zip(unordered, unordered.dropFirst()).allSatisfy { !before($1, $0) } ? unordered : unordered.sorted(by: before)
        let recentStart = context.recentStart
        let decided = rows.compactMap { r in HistoryExecution.passed(r.outcome).map { (run: r.run, passed: $0) } }
        let timeline = decided.map(\.passed)
        let earlier = decided.prefix { $0.run < recentStart }
        let sameCode = context.disagreements(decided[...])
        let (state, reason) = verdict(timeline, disagreements: sameCode)
        let timed = rows.compactMap { r in r.duration.map { (run: r.run, seconds: $0) } }
        let earlierTimes = timed.prefix { $0.run < recentStart }.map(\.seconds).sorted(), recentTimes = timed.drop { $0.run < recentStart }.map(\.seconds).sorted()
        // All of them sorted: the few recent ones put into the earlier ones' order (one sort of each test's durations, not two).
        var allTimes = earlierTimes
        for time in recentTimes { allTimes.insert(time, at: allTimes.firstIndex { $0 > time } ?? allTimes.endIndex) }
        // One point per run for the last `pointRuns` runs (a run's rows are next to each other once sorted).
        var points: [HistoryTimelinePoint] = []
        var end = rows.endIndex
        while end > rows.startIndex, points.count < pointRuns {
            let run = rows[end - 1].run
            var start = end - 1
            while start > rows.startIndex, rows[start - 1].run == run { start -= 1 }
            points.append(HistoryTimelines.point(run: context.runs[run].uuid, date: context.runs[run].startedAt, rows[start..<end]))
            end = start
        }
        return TestStats(
            test: test, runs: timeline.count, failures: timeline.filter { !$0 }.count, flips: flips(timeline),
            sameCodeDisagreements: sameCode,
            earlierDuration: earlierTimes.count >= 3 ? median(sorted: earlierTimes) : nil, recentDuration: recentTimes.count >= 3 ? median(sorted: recentTimes) : nil,
            medianDuration: allTimes.isEmpty ? nil : median(sorted: allTimes),
            points: points.reversed(), state: state, reason: reason,
            earlierState: verdict(earlier.map(\.passed), disagreements: context.disagreements(earlier)).0,
            lastFailure: rows.last { HistoryExecution.passed($0.outcome) == false }?.message)
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

    /// The median of values in ascending order.
    static func median(sorted: [Double]) -> Double {
        sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
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
