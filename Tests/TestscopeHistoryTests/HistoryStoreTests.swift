import Foundation
import TestscopeExecution
import XCTest
@testable import TestscopeHistory

/// The store on real SQLite files: round trip, idempotent merge, and the files it must refuse without
/// changing a byte (another program's database, a newer schema, a locked file, not SQLite at all).
final class HistoryStoreTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func record(_ index: Int, outcomes: [String: String], commit: String = "c1") -> HistoryRecord {
        var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(index) * 60),
                             finishedAt: Date(timeIntervalSince1970: 1_800_000_030 + Double(index) * 60), exitStatus: outcomes.values.contains("failed") ? 1 : 0)
        (run.commit, run.tree, run.branch, run.lines) = (commit, "t-" + commit, "main", HistoryRatio(covered: 70 + index, total: 100))
        run.testCount = outcomes.count
        let executions = outcomes.sorted { $0.key < $1.key }.map { test, outcome in
            HistoryExecution(test: test, outcome: outcome, duration: 0.01 * Double(index + 1),
                             fingerprint: outcome == "failed" ? HistoryExecution.fingerprint(outcome: outcome, place: "A.swift:3", message: "x \(index)") : nil,
                             message: outcome == "failed" ? "XCTAssertEqual failed: (\"\(index)\") is not equal to (\"0\")" : nil)
        }
        return HistoryRecord(run: run, executions: executions, coverageFiles: [HistoryFileCoverage(path: "Sources/A.swift", lines: HistoryRatio(covered: index, total: 10))],
                             findings: [HistoryFinding(test: "M.C/testA", classification: "stable", runs: 3, failedRuns: 0)])
    }

    func testRoundTripAndIdempotentAppend() throws {
        let url = folder.appendingPathComponent("h.sqlite")
        let written = [record(0, outcomes: ["M.C/testA": "passed", "M.C/testB": "failed"]), record(1, outcomes: ["M.C/testA": "passed", "M.C/testB [x → 1]": "skipped"])]
        let store = try HistoryStore(url: url, mode: .write)
        for r in written { XCTAssertTrue(try store.append(r)) }
        XCTAssertFalse(try store.append(written[0]), "the same run uuid is stored once")
        try store.close()
        let wal = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(wal, 0, "the WAL is checkpointed into the file on close")
        let read = try HistoryStore(url: url, mode: .read)
        XCTAssertEqual(try read.records(), written)
        XCTAssertEqual(try read.records(since: written[1].run.startedAt), [written[1]])
        XCTAssertEqual(try read.records(branch: "other"), [])
    }

    func testMergeIsIdempotent() throws {
        let a = folder.appendingPathComponent("a.sqlite"), b = folder.appendingPathComponent("b.sqlite"), into = folder.appendingPathComponent("all.sqlite")
        for (url, range) in [(a, 0..<3), (b, 3..<5)] {
            let store = try HistoryStore(url: url, mode: .write)
            for i in range { try store.append(record(i, outcomes: ["M.C/testA": i % 2 == 0 ? "passed" : "failed"])) }
            try store.close()
        }
        let first = try HistoryStore.merge([a, b], into: into)
        XCTAssertEqual(first.added, 5)
        let again = try HistoryStore.merge([a, b, a], into: into)
        XCTAssertEqual(again.added, 0)
        XCTAssertEqual(again.present, 8)
        let all = try HistoryStore(url: into, mode: .read).records()
        let sources = try HistoryStore(url: a, mode: .read).records() + HistoryStore(url: b, mode: .read).records()
        XCTAssertEqual(Set(all.map(\.run.uuid)), Set(sources.map(\.run.uuid)))
        XCTAssertEqual(all.count, 5)
        XCTAssertEqual(all.sorted { $0.run.startedAt < $1.run.startedAt }, sources.sorted { $0.run.startedAt < $1.run.startedAt })
    }

    func testRefusesNonSQLiteWithoutTouchingIt() throws {
        let url = folder.appendingPathComponent("notes.sqlite")
        let bytes = Data("these are my notes, not a database\n".utf8)
        try bytes.write(to: url)
        XCTAssertThrowsError(try HistoryStore(url: url, mode: .write)) { XCTAssertEqual($0 as? HistoryError, .notSQLite(path: url.path)) }
        XCTAssertEqual(try Data(contentsOf: url), bytes)
    }

    func testRefusesForeignAndNewerDatabasesWithoutTouchingThem() throws {
        let foreign = folder.appendingPathComponent("foreign.sqlite")
        try python("import sqlite3; c = sqlite3.connect('\(foreign.path)'); c.execute('create table t(x)'); c.execute('insert into t values (1)'); c.commit()")
        let before = try Data(contentsOf: foreign)
        XCTAssertThrowsError(try HistoryStore(url: foreign, mode: .write)) { XCTAssertEqual($0 as? HistoryError, .foreign(path: foreign.path)) }
        XCTAssertEqual(try Data(contentsOf: foreign), before)

        let newer = folder.appendingPathComponent("newer.sqlite")
        let store = try HistoryStore(url: newer, mode: .write)
        try store.append(record(0, outcomes: ["M.C/testA": "passed"]))
        try store.close()
        try python("import sqlite3; c = sqlite3.connect('\(newer.path)'); c.execute('pragma user_version = 99'); c.commit(); c.execute('pragma journal_mode=delete')")
        let newerBytes = try Data(contentsOf: newer)
        for mode in [HistoryStore.Mode.write, .read] {
            XCTAssertThrowsError(try HistoryStore(url: newer, mode: mode)) {
                XCTAssertEqual($0 as? HistoryError, .newerSchema(path: newer.path, version: 99, supported: HistorySchema.currentVersion))
            }
        }
        XCTAssertEqual(try Data(contentsOf: newer), newerBytes)
    }

    /// A folder given as the history, or a file in a folder that does not exist: said as such, nothing created.
    func testAFolderOrAMissingFolderIsSaidAsSuch() throws {
        XCTAssertThrowsError(try HistoryStore(url: folder, mode: .write)) { error in
            XCTAssertTrue((error as? HistoryError)?.localizedDescription.contains("a folder, not a file") == true, "\(error)")
        }
        let missing = folder.appendingPathComponent("no-such-folder/h.sqlite")
        XCTAssertThrowsError(try HistoryStore(url: missing, mode: .write)) { error in
            XCTAssertTrue((error as? HistoryError)?.localizedDescription.contains("its folder \(missing.deletingLastPathComponent().path) does not exist") == true, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.deletingLastPathComponent().path))
    }

    /// A history written before schema 5 (executions in run order) is rebuilt in test order when next opened
    /// for writing: the same records and analysis, the read by test a plain scan of the table (no lookups).
    func testSchema4FileIsMigratedToTestOrder() throws {
        let url = folder.appendingPathComponent("v4.sqlite")
        let written = (0..<6).map { record($0, outcomes: ["M.C/testA": "passed", "M.C/testB": $0 % 2 == 0 ? "failed" : "passed", "M.C/testC": "skipped"]) }
        let old = try SQLiteConnection(path: url.path, create: true, readOnly: false, busyTimeout: 1)
        try old.transaction {
            for migration in HistorySchema.migrations.prefix(4) { try old.execute(migration) }
            try old.execute("PRAGMA application_id = \(HistorySchema.applicationID); PRAGMA user_version = 4")
            for r in written { _ = try HistoryRows.insert(r, into: old) }
        }
        old.close()
        let plan = "EXPLAIN QUERY PLAN SELECT test_id, run_id, iteration, outcome, duration, message FROM execution ORDER BY test_id, run_id, iteration"
        try XCTAssertEqual(sqlite(url, "PRAGMA user_version"), "4")
        try XCTAssertTrue(sqlite(url, plan).contains("USING INDEX"), "schema 4 reads by test through an index")

        try HistoryStore(url: url, mode: .write).close()
        try XCTAssertEqual(sqlite(url, "PRAGMA user_version"), "5")
        let migrated = try sqlite(url, plan)
        XCTAssertFalse(migrated.contains("INDEX"), "schema 5 reads by test in one scan: \(migrated)")
        let read = try HistoryStore(url: url, mode: .read)
        defer { try? read.close() }
        XCTAssertEqual(try read.records(), written)
        let text = HistoryText(path: "h")
        XCTAssertEqual(text.render(try read.analysis()), text.render(HistoryAnalysis(written)))
        XCTAssertEqual(try read.analysis().tests.first { $0.test == "M.C/testB" }?.flips, 5)
    }

    /// Python's sqlite3 module's answer to `sql` on `url` (a reader independent of Testscope): its rows' values, space-separated.
    func sqlite(_ url: URL, _ sql: String) throws -> String {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let code = "import sqlite3, sys; print(' '.join(str(v) for row in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]) for v in row))"
        let result = try ProcessRunner.run(python, ["-c", code, url.path, sql])
        XCTAssertTrue(result.succeeded, result.stderrText)
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Another process holds the write lock past the timeout: one `locked` error, the stored runs unchanged.
    /// Several writers creating the same new history at once all succeed (switching a new file to WAL
    /// can fail one of them at once with SQLITE_BUSY, without SQLite's busy handler: seen in CI as
    /// "locked … (waited 30 s)" after 1.5 s); every run is stored once.
    func testWritersCreatingOneNewHistoryAtOnceAllSucceed() throws {
        for round in 0..<20 {
            let url = folder.appendingPathComponent("new-\(round).sqlite")
            let failures = Locked<[String]>([])
            let records = (0..<6).map { record($0, outcomes: ["M.C/test\($0)": "passed"]) }
            // Six threads (not Dispatch's two workers on a 2-core machine), released together.
            let gate = DispatchSemaphore(value: 0), done = DispatchGroup()
            for i in 0..<6 {
                done.enter()
                Thread {
                    gate.wait()
                    do {
                        let store = try HistoryStore(url: url, mode: .write)
                        try store.append(records[i])
                        try store.close()
                    } catch {
                        failures.withLock { $0.append("writer \(i): \(error)") }
                    }
                    done.leave()
                }.start()
            }
            for _ in 0..<6 { gate.signal() }
            done.wait()
            XCTAssertEqual(failures.withLock { $0 }, [], "round \(round)")
            XCTAssertEqual(try HistoryStore(url: url, mode: .read).records().count, 6, "round \(round)")
        }
    }

    func testLockedFileIsReportedAndLeftIntact() throws {
        let url = folder.appendingPathComponent("h.sqlite")
        let store = try HistoryStore(url: url, mode: .write)
        try store.append(record(0, outcomes: ["M.C/testA": "passed"]))
        try store.close()
        let ready = folder.appendingPathComponent("locked")
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let holder = DispatchGroup()
        let script = """
            import sqlite3, time, pathlib
            c = sqlite3.connect('\(url.path)', isolation_level=None)
            c.execute('begin exclusive')
            pathlib.Path('\(ready.path)').touch()
            time.sleep(3)
            c.execute('rollback')
            """
        DispatchQueue.global().async(group: holder) { _ = try? ProcessRunner.run(python, ["-c", script]) }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: ready.path), Date() < deadline { usleep(20_000) }
        XCTAssertThrowsError(try {
            let locked = try HistoryStore(url: url, mode: .write, busyTimeout: 0.5)
            try locked.append(record(1, outcomes: ["M.C/testA": "failed"]))
        }()) { XCTAssertEqual($0 as? HistoryError, .locked(path: url.path, seconds: 0.5)) }
        holder.wait()
        XCTAssertEqual(try HistoryStore(url: url, mode: .read).records().count, 1)
    }

    func python(_ code: String) throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(python, ["-c", code])
        XCTAssertTrue(result.succeeded, result.stderrText)
    }
}
