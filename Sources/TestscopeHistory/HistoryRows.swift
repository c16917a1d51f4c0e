import Foundation

/// The SQL of one record: its rows written inside the caller's transaction, and read back.
enum HistoryRows {
    static let runColumns = """
        uuid, command, started_at, finished_at, commit_sha, tree_sha, branch, ci_provider, ci_run_id, ci_job, seed, toolchain, host,
        testscope_version, exit_status, lines_covered, lines_total, functions_covered, functions_total, regions_covered, regions_total,
        test_count, failed_count, suite_seconds
        """

    /// Inserts the record; false when its uuid is already there.
    static func insert(_ record: HistoryRecord, into db: SQLiteConnection) throws -> Bool {
        let r = record.run
        let exists = try db.prepare("SELECT 1 FROM run WHERE uuid = ?").bind([.text(r.uuid)])
        if try exists.step() { return false }
        func ratio(_ ratio: HistoryRatio?) -> [SQLValue?] { [ratio.map { .int(Int64($0.covered)) }, ratio.map { .int(Int64($0.total)) }] }
        let values: [SQLValue?] = [
            .text(r.uuid), .text(r.command), .double(r.startedAt.timeIntervalSince1970), .double(r.finishedAt.timeIntervalSince1970),
            r.commit.sql, r.tree.sql, r.branch.sql, r.ciProvider.sql, r.ciRunID.sql, r.ciJob.sql, r.seed.sql, r.toolchain.sql, r.host.sql,
            r.testscopeVersion.sql, r.exitStatus.sql,
        ] + ratio(r.lines) + ratio(r.functions) + ratio(r.regions) + [r.testCount.sql, r.failedCount.sql, r.suiteSeconds.sql]
        try db.prepare("INSERT INTO run(\(runColumns)) VALUES (\(Array(repeating: "?", count: values.count).joined(separator: ",")))").run(values)
        let runID = try db.integer("SELECT last_insert_rowid()")

        let addTest = try db.prepare("INSERT OR IGNORE INTO test(name) VALUES (?)")
        let findTest = try db.prepare("SELECT id FROM test WHERE name = ?")
        var testIDs: [String: Int64] = [:]
        func testID(_ name: String) throws -> Int64 {
            if let id = testIDs[name] { return id }
            try addTest.run([.text(name)])
            findTest.bind([.text(name)])
            _ = try findTest.step()
            let id = findTest.int(0)
            testIDs[name] = id
            return id
        }
        // OR REPLACE: a test reported twice in one iteration (a relaunch) keeps its last result.
        let execution = try db.prepare("INSERT OR REPLACE INTO execution VALUES (?,?,?,?,?,?,?)")
        for e in record.executions {
            try execution.run([.int(runID), .int(try testID(e.test)), e.iteration.sql, .text(e.outcome), e.duration.sql, e.fingerprint.sql, e.message.sql])
        }
        let file = try db.prepare("INSERT OR REPLACE INTO coverage_file VALUES (?,?,?,?)")
        for f in record.coverageFiles { try file.run([.int(runID), .text(f.path), f.lines.covered.sql, f.lines.total.sql]) }
        let finding = try db.prepare("INSERT OR REPLACE INTO flaky_finding VALUES (?,?,?,?,?)")
        for f in record.findings { try finding.run([.int(runID), .int(try testID(f.test)), .text(f.classification), f.runs.sql, f.failedRuns.sql]) }
        return true
    }

    /// The runs (oldest first) matching the filters, with their executions, files and findings.
    static func load(from db: SQLiteConnection, since: Date?, branch: String?) throws -> [HistoryRecord] {
        var (ids, records) = try runs(from: db, since: since, branch: branch)
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let executions = try db.prepare("""
            SELECT run_id, name, iteration, outcome, duration, fingerprint, message FROM execution JOIN test ON test.id = test_id
            ORDER BY run_id, iteration, name
            """)
        while try executions.step() {
            guard let i = index[executions.int(0)] else { continue }
            records[i].executions.append(HistoryExecution(
                test: executions.text(1) ?? "", iteration: Int(executions.int(2)), outcome: executions.text(3) ?? "",
                duration: executions.double(4), fingerprint: executions.text(5), message: executions.text(6)))
        }
        let files = try db.prepare("SELECT run_id, path, lines_covered, lines_total FROM coverage_file ORDER BY run_id, path")
        while try files.step() {
            guard let i = index[files.int(0)] else { continue }
            records[i].coverageFiles.append(HistoryFileCoverage(path: files.text(1) ?? "", lines: HistoryRatio(covered: Int(files.int(2)), total: Int(files.int(3)))))
        }
        return records
    }

    /// The runs (oldest first) matching the filters with their findings, not their executions; and their ids.
    static func runs(from db: SQLiteConnection, since: Date?, branch: String?) throws -> (ids: [Int64], records: [HistoryRecord]) {
        var conditions: [String] = [], values: [SQLValue?] = []
        if let since { conditions.append("started_at >= ?"); values.append(.double(since.timeIntervalSince1970)) }
        if let branch { conditions.append("branch = ?"); values.append(.text(branch)) }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let runs = try db.prepare("SELECT id, \(runColumns) FROM run\(filter) ORDER BY started_at, id").bind(values)
        var ids: [Int64] = [], records: [HistoryRecord] = []
        while try runs.step() {
            var run = HistoryRun(uuid: runs.text(1) ?? "", command: runs.text(2) ?? "",
                                 startedAt: Date(timeIntervalSince1970: runs.double(3) ?? 0),
                                 finishedAt: Date(timeIntervalSince1970: runs.double(4) ?? 0), exitStatus: Int(runs.int(15)))
            (run.commit, run.tree, run.branch, run.ciProvider, run.ciRunID, run.ciJob) = (runs.text(5), runs.text(6), runs.text(7), runs.text(8), runs.text(9), runs.text(10))
            (run.seed, run.toolchain, run.host, run.testscopeVersion) = (runs.text(11), runs.text(12), runs.text(13), runs.text(14))
            func ratio(_ column: Int32) -> HistoryRatio? {
                guard let covered = runs.optionalInt(column), let total = runs.optionalInt(column + 1) else { return nil }
                return HistoryRatio(covered: Int(covered), total: Int(total))
            }
            (run.lines, run.functions, run.regions) = (ratio(16), ratio(18), ratio(20))
            (run.testCount, run.failedCount, run.suiteSeconds) = (Int(runs.int(22)), Int(runs.int(23)), runs.double(24))
            ids.append(runs.int(0))
            records.append(HistoryRecord(run: run))
        }
        let index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let findings = try db.prepare("""
            SELECT run_id, name, classification, runs, failed_runs FROM flaky_finding JOIN test ON test.id = test_id ORDER BY run_id, name
            """)
        while try findings.step() {
            guard let i = index[findings.int(0)] else { continue }
            records[i].findings.append(HistoryFinding(test: findings.text(1) ?? "", classification: findings.text(2) ?? "",
                                                      runs: Int(findings.int(3)), failedRuns: Int(findings.int(4))))
        }
        return (ids, records)
    }

    /// The executions of the runs in `place` (id → place among the selected runs), one test at a time:
    /// the table is kept in test order (schema 5), so this is one pass holding one test's rows.
    static func executionsByTest(from db: SQLiteConnection, runs place: [Int64: Int], _ consume: (String, [HistoryTestRow]) -> Void) throws {
        var names: [Int64: String] = [:]
        let tests = try db.prepare("SELECT id, name FROM test")
        while try tests.step() { names[tests.int(0)] = tests.text(1) ?? "" }
        let rows = try db.prepare("SELECT test_id, run_id, iteration, outcome, duration, message FROM execution ORDER BY test_id, run_id, iteration")
        var groups = HistoryTestGroups(names: names)
        while try rows.step() {
            groups.add(rows.int(0), place[rows.int(1)].map {
                HistoryTestRow(run: $0, iteration: Int(rows.int(2)), outcome: rows.text(3) ?? "", duration: rows.double(4), message: rows.text(5))
            }, to: consume)
        }
        groups.finish(consume)
    }
}
