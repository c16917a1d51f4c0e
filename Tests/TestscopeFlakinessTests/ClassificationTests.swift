import TestscopeFlakiness
import TestscopeTestResults
import XCTest

/// The analysis on a simulated suite: every planted case gets its class and culprits, nothing stable is
/// flagged, and the result does not depend on the number of jobs.
final class ClassificationTests: XCTestCase {
    let tests = [
        "M.Cache/testA_victim", "M.Cache/testB_polluter", "M.Cache/testC_cleaner",
        "M.Format/testVictim", "M.Locale/testPolluter", "M.TSV/testPolluter",
        "M.Auth/testSetter", "M.Session/testBrittle",
        "M.Registry/testCrashVictim", "M.Shutdown/testPolluter",
        "M.Net/testNOD", "M.Legacy/testFails", "M.Legacy/testSkipped",
        "M.Math/testA", "M.Math/testB", "M.Math/testC", "M.Pair/testNeedsBoth", "M.PairX/testOne", "M.PairY/testTwo",
    ]

    func suite() -> SimulatedSuite {
        let suite = SimulatedSuite(seed: 3)
        suite.victims["M.Cache/testA_victim"] = .init(polluterGroups: [["M.Cache/testB_polluter"]], cleaners: ["M.Cache/testC_cleaner"])
        suite.victims["M.Format/testVictim"] = .init(polluterGroups: [["M.Locale/testPolluter"], ["M.TSV/testPolluter"]])
        suite.victims["M.Registry/testCrashVictim"] = .init(polluterGroups: [["M.Shutdown/testPolluter"]], crashes: true)
        suite.victims["M.Pair/testNeedsBoth"] = .init(polluterGroups: [["M.PairX/testOne", "M.PairY/testTwo"]])
        suite.brittle["M.Session/testBrittle"] = ["M.Auth/testSetter"]
        suite.nod = ["M.Net/testNOD"]
        suite.alwaysFails = ["M.Legacy/testFails"]
        suite.skipped = ["M.Legacy/testSkipped"]
        return suite
    }

    func findings(jobs: Int, suite: SimulatedSuite, runs: Int = 12) throws -> [String: TestFinding] {
        let orders = OrderPlan(seed: 7, defaultOrder: tests).orders(count: runs)
        let executions = try orders.map { try suite.run($0.tests) }
        let analyzer = FlakinessAnalyzer(runner: suite, defaultOrder: tests)
        let found = try analyzer.analyze(tests.map { AnalyzedTest(id: $0, framework: .xctest, method: .inProcessOrder) },
                                         executions: executions, jobs: jobs)
        return Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0) })
    }

    /// A parallel run (`--nod-modes parallel`) keeps no order: a test that failed only in such runs is NOD
    /// with a note naming them, and a victim beside parallel runs is still found with its polluter.
    func testFailuresOnlyInParallelRunsAreNODAndVictimsStayVictims() throws {
        let suite = suite()
        let orders = OrderPlan(seed: 7, defaultOrder: tests, modes: [.plain, .parallel]).orders(count: 12)
        XCTAssertEqual(orders.map(\.mode), (0..<12).map { $0 % 2 == 0 ? .plain : .parallel })
        var executions = try orders.map { try suite.run($0.tests) }
        let racy = "M.Math/testB"
        for i in executions.indices {
            executions[i].mode = orders[i].mode
            // A race that shows only when the tests run at once.
            if [3, 7].contains(i) { executions[i].results[racy]?.outcome = .failed }
        }
        let analyzer = FlakinessAnalyzer(runner: suite, defaultOrder: tests)
        let found = try analyzer.analyze(tests.map { AnalyzedTest(id: $0, framework: $0 == racy ? .swiftTesting : .xctest, method: .inProcessOrder) },
                                         executions: executions, jobs: 2)
        let f = Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0) })
        XCTAssertEqual(f[racy]?.classification, .nod)
        XCTAssertEqual(f[racy]?.note, "failed only when Swift Testing ran its tests in parallel (runs 3, 7)")
        XCTAssertEqual(f[racy]?.analysisRuns, 0, "no order is rerun for it: no order decides it")
        XCTAssertEqual(f[racy]?.failingOrder, executions[3].processes.first { $0.contains(racy) }, "reproduced with what ran at once with it")
        XCTAssertEqual(f["M.Cache/testA_victim"]?.classification, .odVictim)
        XCTAssertEqual(f["M.Cache/testA_victim"]?.polluterGroups, [["M.Cache/testB_polluter"]])
        XCTAssertEqual(f["M.Math/testA"]?.classification, .stable)
        // An XCTest test runs in order in a parallel run too: failing there is evidence like any other.
        let xctest = try analyzer.analyze([AnalyzedTest(id: racy, framework: .xctest, method: .inProcessOrder)], executions: executions, jobs: 1)
        XCTAssertNotEqual(xctest.first?.note, f[racy]?.note)
        XCTAssertGreaterThan(xctest.first?.analysisRuns ?? 0, 0, "its failing prefix is rerun")
    }

    func testPlantedCasesAreFoundWithTheirCulprits() throws {
        let f = try findings(jobs: 2, suite: suite())
        XCTAssertEqual(f["M.Cache/testA_victim"]?.classification, .odVictim)
        XCTAssertEqual(f["M.Cache/testA_victim"]?.polluterGroups, [["M.Cache/testB_polluter"]])
        XCTAssertEqual(f["M.Cache/testA_victim"]?.cleaners, ["M.Cache/testC_cleaner"])
        XCTAssertEqual(f["M.Cache/testA_victim"]?.failingOrder, ["M.Cache/testB_polluter", "M.Cache/testA_victim"])

        XCTAssertEqual(f["M.Format/testVictim"]?.classification, .odVictim)
        XCTAssertEqual(Set(f["M.Format/testVictim"]?.polluters ?? []), ["M.Locale/testPolluter", "M.TSV/testPolluter"], "both polluters")
        XCTAssertEqual(f["M.Format/testVictim"]?.polluterGroups.count, 2)
        XCTAssertEqual(f["M.Format/testVictim"]?.cleaners, [])

        XCTAssertEqual(f["M.Registry/testCrashVictim"]?.classification, .odVictim)
        XCTAssertEqual(f["M.Registry/testCrashVictim"]?.polluters, ["M.Shutdown/testPolluter"])

        XCTAssertEqual(f["M.Pair/testNeedsBoth"]?.classification, .odVictim)
        XCTAssertEqual(f["M.Pair/testNeedsBoth"]?.polluterGroups.map(Set.init), [["M.PairX/testOne", "M.PairY/testTwo"]], "a group needed as a whole")

        XCTAssertEqual(f["M.Session/testBrittle"]?.classification, .odBrittle)
        XCTAssertEqual(f["M.Session/testBrittle"]?.setters, ["M.Auth/testSetter"])
        XCTAssertEqual(f["M.Session/testBrittle"]?.failingOrder, ["M.Session/testBrittle"])
        XCTAssertEqual(f["M.Session/testBrittle"]?.passingOrder, ["M.Auth/testSetter", "M.Session/testBrittle"])

        XCTAssertEqual(f["M.Net/testNOD"]?.classification, .nod)
        XCTAssertEqual(f["M.Legacy/testFails"]?.classification, .consistentFailure)
        XCTAssertEqual(f["M.Legacy/testSkipped"]?.classification, .skipped)
        let planted: Set<String> = ["M.Cache/testA_victim", "M.Format/testVictim", "M.Registry/testCrashVictim", "M.Pair/testNeedsBoth",
                                    "M.Session/testBrittle", "M.Net/testNOD", "M.Legacy/testFails", "M.Legacy/testSkipped"]
        for (id, finding) in f where !planted.contains(id) {
            XCTAssertEqual(finding.classification, .stable, "\(id) must not be flagged")
            XCTAssertEqual(finding.analysisRuns, 0, "a stable test costs no extra run")
        }
        // Evidence: the confirmation steps are recorded with their verdicts.
        let labels = f["M.Cache/testA_victim"]?.evidence.map(\.label) ?? []
        XCTAssertTrue(labels.contains { $0.hasPrefix("failing prefix of run") }, "\(labels)")
        XCTAssertTrue(labels.contains("alone"))
        XCTAssertTrue(labels.contains("minimal order (polluter, victim)"))
    }

    func testTheResultDoesNotDependOnJobs() throws {
        let one = try findings(jobs: 1, suite: suite())
        let four = try findings(jobs: 4, suite: suite())
        for id in tests where id != "M.Net/testNOD" {
            XCTAssertEqual(one[id]?.classification, four[id]?.classification, id)
            XCTAssertEqual(one[id]?.polluterGroups, four[id]?.polluterGroups, id)
            XCTAssertEqual(one[id]?.setterGroups, four[id]?.setterGroups, id)
            XCTAssertEqual(one[id]?.cleaners, four[id]?.cleaners, id)
            XCTAssertEqual(one[id]?.evidence, four[id]?.evidence, id)
        }
    }

    func testASamePrefixWithBothOutcomesIsNOD() throws {
        // Two runs with the same (empty) prefix, one failing and one passing: NOD without another run.
        let suite = SimulatedSuite()
        var pass = ExecutedOrder(order: ["M.X/t"])
        pass.results["M.X/t"] = TestCaseResult(id: "M.X/t", framework: .xctest, module: "M", suite: "X", name: "t", outcome: .passed)
        pass.processes = [["M.X/t"]]
        var fail = pass
        fail.results["M.X/t"]?.outcome = .failed
        let found = try FlakinessAnalyzer(runner: suite, defaultOrder: ["M.X/t"])
            .analyze([AnalyzedTest(id: "M.X/t", framework: .xctest, method: .inProcessOrder)], executions: [pass, fail], jobs: 1)
        XCTAssertEqual(found.first?.classification, .nod)
        XCTAssertEqual(found.first?.evidence.first?.label, "same prefix in runs 0 and 1")
        XCTAssertEqual(suite.runCount, 0)
    }

    /// A rerun whose process ended before the test is no verdict (it used to count as "skip", and so as a
    /// confirmation that failed): the test is judged by the runs it ran in, and the note says so.
    func testRerunsInWhichTheTestDidNotRunGiveNoVerdict() throws {
        struct EndsBeforeIt: OrderRunning {
            func run(_ order: [String]) throws -> ExecutedOrder {
                var execution = ExecutedOrder(order: order)
                execution.notRun = order
                return execution
            }
        }
        let id = "M.X/t"
        var pass = ExecutedOrder(order: ["M.A/a", id])
        pass.results[id] = TestCaseResult(id: id, framework: .xctest, module: "M", suite: "X", name: "t", outcome: .passed)
        pass.processes = [["M.A/a", id]]
        var fail = ExecutedOrder(order: ["M.B/b", id])
        fail.results[id] = TestCaseResult(id: id, framework: .xctest, module: "M", suite: "X", name: "t", outcome: .failed)
        fail.processes = [["M.B/b", id]]
        let found = try FlakinessAnalyzer(runner: EndsBeforeIt(), defaultOrder: ["M.A/a", "M.B/b", id])
            .analyze([AnalyzedTest(id: id, framework: .xctest, method: .inProcessOrder)], executions: [pass, fail], jobs: 1)
        XCTAssertEqual(found[0].evidence.map(\.label), ["failing prefix of run 1, rerun (it ran in 0 of 3)"])
        XCTAssertEqual(found[0].evidence[0].verdicts, [])
        XCTAssertEqual(found[0].note, "not confirmed: the test did not run in the reruns of the failing prefix of run 1 (its process ended before it)")
        XCTAssertEqual(found[0].classification, .nod, "it passed and failed in the runs it ran in")
    }

    func testARunBudgetStopsTheSearchAndSaysSo() throws {
        let suite = suite()
        let orders = OrderPlan(seed: 7, defaultOrder: tests).orders(count: 4)
        let executions = try orders.map { try suite.run($0.tests) }
        let analyzer = FlakinessAnalyzer(runner: suite, settings: AnalysisSettings(confirmations: 3, runBudget: 4), defaultOrder: tests)
        let found = try analyzer.analyze([AnalyzedTest(id: "M.Format/testVictim", framework: .xctest, method: .inProcessOrder)],
                                         executions: executions, jobs: 1)
        XCTAssertLessThanOrEqual(found[0].analysisRuns, 4)
        XCTAssertNotNil(found[0].note)
        XCTAssertTrue(found[0].note?.contains("budget") == true, found[0].note ?? "")
    }

    func testDeltaDebuggingFindsSingleCulpritsAndPairsAndKeepsOrder() {
        let items = (0..<20).map { "t\($0)" }
        var calls = 0
        let single = DeltaDebugging.minimize(items) { subset in calls += 1; return subset.contains("t13") }
        XCTAssertEqual(single.result, ["t13"])
        XCTAssertTrue(single.complete)
        XCTAssertLessThan(calls, 20, "fewer runs than trying each test alone")
        let pair = DeltaDebugging.minimize(items) { $0.contains("t2") && $0.contains("t17") }
        XCTAssertEqual(pair.result, ["t2", "t17"])
        var budget = 3
        let stopped = DeltaDebugging.minimize(items) { subset -> Bool? in
            budget -= 1
            return budget < 0 ? nil : subset.contains("t5")
        }
        XCTAssertFalse(stopped.complete)
        XCTAssertTrue(stopped.result.contains("t5"))
    }
}
