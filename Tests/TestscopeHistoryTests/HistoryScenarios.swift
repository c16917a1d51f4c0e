import Foundation
import TestscopeExecution
import XCTest
@testable import TestscopeHistory

/// History scenarios run the same way on both backends (`SQLiteBackendTests`, `PostgresBackendTests`):
/// each takes a new, empty store location and returns what it read back, so both classes can compare.
struct HistoryScenarios {
    /// A new, empty history (an SQLite path, or a new database's URL).
    var newStore: () throws -> URL

    /// User data that must stay data: SQL, quotes, a backslash, non-ASCII and names that sort apart bytewise.
    static let injection = "'); DROP TABLE runs; --"

    /// Run `index` of a timeline: M.C/testA always passes, M.C/testB flips, a parameterized case is skipped,
    /// the injection value is a test name and the branch name (of runs 3 and 4, so `--branch` finds it).
    static func record(_ index: Int) -> HistoryRecord {
        let flips = ["passed", "failed", "passed", "passed", "failed", "passed", "failed"]
        var run = HistoryRun(uuid: "run-\(index)", command: index % 3 == 2 ? "flaky" : "run", startedAt: Date(timeIntervalSince1970: 1_800_000_000.125 + Double(index) * 60),
                             finishedAt: Date(timeIntervalSince1970: 1_800_000_030.5 + Double(index) * 60), exitStatus: index % 2)
        (run.commit, run.tree) = ("c\(index / 2)", "t\(index / 2)")
        run.branch = index == 3 || index == 4 ? injection : "main"
        (run.ciProvider, run.ciRunID, run.ciJob, run.host) = ("github", "\(1000 + index)", "test (\"macos\")", "host\\01")
        run.seed = index % 3 == 2 ? "0x\(index)" : nil
        (run.lines, run.functions, run.regions) = (HistoryRatio(covered: 70 + index, total: 100), HistoryRatio(covered: 9, total: 10), nil)
        run.suiteSeconds = index == 0 ? nil : 1.0 / 3.0 * Double(index)
        let outcomes: [(String, String)] = [("M.C/testA", "passed"), ("M.C/testB", flips[index % flips.count]), ("M.C/testB [x → 1]", "skipped"),
                                            (injection, index % 2 == 0 ? "passed" : "failed"), ("M.c/zäöü \u{1F600}", "passed"), ("M.C/test_a", "passed")]
        // In the order the stores read them back: by name, bytewise (SQLite's BINARY, PostgreSQL's "C").
        let executions = outcomes.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }.map { test, outcome in
            HistoryExecution(test: test, outcome: outcome, duration: 0.001 * Double(index + 1) + 1e-9,
                             fingerprint: outcome == "failed" ? HistoryExecution.fingerprint(outcome: outcome, place: "A.swift:3", message: "x \(index)") : nil,
                             message: outcome == "failed" ? "XCTAssertEqual failed: (\"\(index)\") is not equal to ('0'); \(injection)" : nil)
        }
        run.testCount = outcomes.count
        run.failedCount = executions.filter { $0.passed == false }.count
        return HistoryRecord(run: run, executions: executions,
                             coverageFiles: [HistoryFileCoverage(path: "Sources/\(injection).swift", lines: HistoryRatio(covered: 1, total: 2)),
                                             HistoryFileCoverage(path: "Sources/A.swift", lines: HistoryRatio(covered: index, total: 10))],
                             findings: index % 3 == 2 ? [HistoryFinding(test: "M.C/testB", classification: "nod", runs: 10, failedRuns: 3)] : [])
    }

    /// Seven runs appended (each a second time: stored once), read back whole and filtered; the analysis's text.
    func roundTrip() throws -> (records: [HistoryRecord], text: String) {
        let url = try newStore()
        let written = (0..<7).map(Self.record)
        let store = try HistoryStore(url: url, mode: .write)
        for record in written { XCTAssertTrue(try store.append(record)) }
        for record in written { XCTAssertFalse(try store.append(record), "a run sent twice is stored once") }
        try store.close()
        let read = try HistoryStore(url: url, mode: .read)
        defer { try? read.close() }
        let all = try read.records()
        XCTAssertEqual(all, written)
        XCTAssertEqual(try read.records(since: written[5].run.startedAt), Array(written[5...]))
        XCTAssertEqual(try read.records(branch: Self.injection), [written[3], written[4]], "the injection value is a branch name like any other")
        XCTAssertEqual(try read.records(branch: "main' OR '1'='1"), [])
        // The store's analysis (read one test at a time) says what the analysis of the records in memory says.
        let text = HistoryText(path: "h", since: nil, branch: nil)
        XCTAssertEqual(text.render(try read.analysis()), text.render(HistoryAnalysis(written)))
        XCTAssertEqual(text.render(try read.analysis(since: written[5].run.startedAt)), text.render(HistoryAnalysis(Array(written[5...]))))
        XCTAssertEqual(text.render(try read.analysis(branch: Self.injection)), text.render(HistoryAnalysis([written[3], written[4]])))
        XCTAssertEqual(try read.analysis().tests.map(\.points), HistoryAnalysis(written).tests.map(\.points))
        return (all, text.render(try read.analysis()))
    }

    /// Two stores merged into a third (twice: nothing added the second time), with an impact map each.
    func mergeWithImpactMaps() throws -> [HistoryRecord] {
        let (a, b, into) = (try newStore(), try newStore(), try newStore())
        for (url, range) in [(a, 0..<3), (b, 3..<5)] {
            let store = try HistoryStore(url: url, mode: .write)
            for i in range { try store.append(Self.record(i)) }
            let map = HistoryImpactMap(commit: "c\(range.lowerBound)", tree: nil, dirty: range.lowerBound == 3, environment: "{\"e\":\"\(Self.injection)\"}",
                                       map: Array(0...255), mapSize: 256, coverage: HistoryImpactCoverage(size: 3, bytes: [0, 255, 7]))
            try store.saveImpactMap(map, runUUID: Self.record(range.lowerBound).run.uuid)
            try store.close()
        }
        XCTAssertEqual(try HistoryStore.merge([a, b], into: into).added, 5)
        let again = try HistoryStore.merge([a, b, a], into: into)
        XCTAssertEqual(again.added, 0)
        XCTAssertEqual(again.present, 8)
        let store = try HistoryStore(url: into, mode: .read)
        defer { try? store.close() }
        let maps = try store.impactMaps(commits: ["c0", "c3", "nope"])
        XCTAssertEqual(maps.map(\.commit), ["c3", "c0"], "newest run first")
        XCTAssertEqual(maps.first?.map, Array(0...255))
        XCTAssertEqual(maps.first?.dirty, true)
        XCTAssertEqual(maps.first?.environment, "{\"e\":\"\(Self.injection)\"}")
        XCTAssertEqual(try store.impactCoverage(runUUID: Self.record(3).run.uuid), HistoryImpactCoverage(size: 3, bytes: [0, 255, 7]))
        XCTAssertNil(try store.impactCoverage(runUUID: Self.record(1).run.uuid))
        return try store.records()
    }

    /// The load of `concurrentWriters`: its defaults, or `TESTSCOPE_HISTORY_LOAD=WxRxT` (scripts/history-load:
    /// issue 44's 16x50x1000).
    static func load(default value: (Int, Int, Int)) -> (writers: Int, runs: Int, tests: Int) {
        let parts = ProcessInfo.processInfo.environment["TESTSCOPE_HISTORY_LOAD"]?.split(separator: "x").compactMap { Int($0) } ?? []
        return parts.count == 3 ? (parts[0], parts[1], parts[2]) : value
    }

    /// `writers` threads at once, each opening the (new) store and appending `runs` runs of `tests` tests
    /// (the same test names: the writers race to add them), each run sent twice; every run stored once.
    /// Prints the first appends' time per run (p50, p95).
    func concurrentWriters(writers: Int, runs: Int, tests: Int, backend: String) throws -> [HistoryRecord] {
        let url = try newStore()
        let failures = Locked<[String]>([]), seconds = Locked<[Double]>([])
        let gate = DispatchSemaphore(value: 0), done = DispatchGroup()
        for writer in 0..<writers {
            done.enter()
            // Threads, not Dispatch's few workers on a 2-core machine: all of them at once.
            Thread {
                gate.wait()
                do {
                    let store = try HistoryStore(url: url, mode: .write)
                    for index in 0..<runs {
                        var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: Double(writer * 1000 + index)),
                                             finishedAt: Date(timeIntervalSince1970: Double(writer * 1000 + index + 1)), exitStatus: 0)
                        run.branch = "w\(writer)"
                        let record = HistoryRecord(run: run, executions: (0..<tests).map { HistoryExecution(test: "M.C/test\($0)", outcome: "passed", duration: 0.01) })
                        let start = Date()
                        XCTAssertTrue(try store.append(record))
                        let elapsed = Date().timeIntervalSince(start)
                        seconds.withLock { $0.append(elapsed) }
                        XCTAssertFalse(try store.append(record))
                    }
                    try store.close()
                } catch {
                    failures.withLock { $0.append("writer \(writer): \(error)") }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<writers { gate.signal() }
        done.wait()
        XCTAssertEqual(failures.withLock { $0 }, [])
        let sorted = seconds.withLock { $0 }.sorted()
        func percentile(_ p: Double) -> String { sorted.isEmpty ? "–" : String(format: "%.1f ms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1000) }
        print("history load \(backend): \(writers) writers × \(runs) runs × \(tests) tests: append time per run p50 \(percentile(0.5)), p95 \(percentile(0.95))")
        let records = try HistoryStore(url: url, mode: .read).records()
        XCTAssertEqual(records.count, writers * runs, "every run stored once")
        // Read test by test (on PostgreSQL in several batches of the cursor): every execution, each test once.
        let analysis = try HistoryStore(url: url, mode: .read).analysis()
        XCTAssertEqual(analysis.tests.map(\.runs), Array(repeating: writers * runs, count: tests))
        XCTAssertEqual(Set(analysis.tests.map(\.test)).count, tests)
        XCTAssertEqual(Set(records.map(\.run.uuid)).count, writers * runs)
        XCTAssertTrue(records.allSatisfy { $0.executions.count == tests })
        return records
    }
}
