import Foundation
import TestscopeExecution
import TestscopeHistory
import XCTest

/// `--history`, `testscope history` and `history merge` with the real binary: runs of a fixture package
/// recorded and read back against their own tests.json, the pictures in Chromium, merge idempotence,
/// two concurrent writers, and the files it must refuse without changing them.
final class HistoryCommandTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("history") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// Each test's outcome in a tests.json, by history key (`id`, or `id [arguments]`).
    func outcomes(_ testsJSON: URL) throws -> [String: String] {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: testsJSON)) as? [String: Any])
        var outcomes: [String: String] = [:]
        for test in try XCTUnwrap(object["tests"] as? [[String: Any]]) {
            let id = try XCTUnwrap(test["id"] as? String)
            outcomes[HistoryExecution.key(id: id, arguments: test["arguments"] as? String)] = try XCTUnwrap(test["outcome"] as? String)
        }
        return outcomes
    }

    /// Two `run --history` of the Flaky fixture, then `history`: every test's runs, failures, flip rate and
    /// same-code disagreements are what the two tests.json files say; history.html is linked and drawn.
    func testTwoRunsThenHistoryAgreesWithTestsJSON() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let history = folder.appendingPathComponent("history.sqlite")
        var runs: [[String: String]] = []
        for index in 1...2 {
            let output = folder.appendingPathComponent("out\(index)")
            let result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--history", history.path, "--quiet"])
            XCTAssertEqual(result.status, 1, "the fixture has failing tests: \(result.stderr)")
            runs.append(try outcomes(output.appendingPathComponent("tests.json")))
        }
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)).filter { $0.hasPrefix("history") }, ["history.sqlite"],
                       "no -wal or -shm file is left beside the history")

        // What was stored is what tests.json says, run by run.
        let records = try HistoryStore(url: history, mode: .read).records()
        XCTAssertEqual(records.count, 2)
        for (record, run) in zip(records, runs) {
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: record.executions.map { ($0.test, $0.outcome) }), run)
            XCTAssertEqual(record.run.exitStatus, 1)
            XCTAssertNotNil(record.run.lines)
        }
        // Inside this repository, both runs are on HEAD: the same code.
        XCTAssertNotNil(records[0].run.commit)
        XCTAssertEqual(records[0].run.tree, records[1].run.tree)

        let result = try TestscopeProcess.run(["history", history.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("2 runs"), result.stdout)
        let row = try NSRegularExpression(pattern: #"^  (broken|flaky|healthy|too-few-runs) +(\d+) +(\d+) +(\S+) +(\d+) +.* (\S+)$"#, options: .anchorsMatchLines)
        var printed: [String: [String]] = [:]
        for match in row.matches(in: result.stdout, range: NSRange(result.stdout.startIndex..., in: result.stdout)) {
            let groups = (1...6).map { String(result.stdout[Range(match.range(at: $0), in: result.stdout)!]) }
            printed[groups[5]] = Array(groups[0...4])
        }
        let verdict = ["passed": true, "expected-failure": true, "failed": false, "crashed": false, "timed-out": false]
        // A row for each test that failed (or was never decided); the tests that passed both runs say nothing
        // yet: one line counts them.
        let all = Set(runs[0].keys).union(runs[1].keys)
        let passedEveryRun = all.filter { test in
            let decided = runs.compactMap { $0[test].flatMap { verdict[$0] } }
            return !decided.isEmpty && !decided.contains(false)
        }
        XCTAssertFalse(passedEveryRun.isEmpty, "the fixture has passing tests")
        XCTAssertEqual(Set(printed.keys), all.subtracting(passedEveryRun), result.stdout)
        let runsOfPassing = Set(passedEveryRun.map { test in runs.compactMap { $0[test].flatMap { verdict[$0] } }.count })
        let counted = "  too-few-runs: \(passedEveryRun.count) tests passed every run so far ("
            + (runsOfPassing.count == 1 ? "\(runsOfPassing.first!)" : "\(runsOfPassing.min()!)–\(runsOfPassing.max()!)") + " of the 5 runs a verdict needs)"
        XCTAssertTrue(result.stdout.contains(counted), "expected '\(counted)'\n\(result.stdout)")
        for (test, values) in printed {
            let decided = runs.compactMap { $0[test].flatMap { verdict[$0] } }
            let flips = zip(decided, decided.dropFirst()).filter { $0 != $1 }.count
            XCTAssertEqual(values[1], String(decided.count), "runs of \(test)")
            XCTAssertEqual(values[2], String(decided.filter { !$0 }.count), "failures of \(test)")
            XCTAssertEqual(values[3], decided.count > 1 ? String(format: "%.2f", Double(flips) / Double(decided.count - 1)) : "–", "flip rate of \(test)")
            XCTAssertEqual(values[4], Set(decided).count == 2 ? "1" : "0", "same-code disagreements of \(test)")
            // Two runs are fewer than the minimum sample: nothing is called flaky.
            XCTAssertNotEqual(values[0], "flaky", test)
        }

        // --branch with a name no run has selects nothing.
        let none = try TestscopeProcess.run(["history", history.path, "--branch", "no-such-branch-\(UUID().uuidString)"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertTrue(none.stdout.contains("no runs"), none.stdout)

        // The pictures: linked from the report's top bar, a point per run linking to its row, a sparkline per test.
        let output = folder.appendingPathComponent("out2")
        let tests = try String(contentsOf: output.appendingPathComponent("tests.html"), encoding: .utf8)
        XCTAssertTrue(tests.contains("href=\"history.html\""))
        XCTAssertEqual(tests.components(separatedBy: "<svg class=\"spark\"").count - 1, runs[1].count, "one sparkline per result")
        let page = try Chromium.load(output.appendingPathComponent("history.html"), in: folder)
        page.assertClean()
        XCTAssertEqual(try page.text("count(//tr[starts-with(@id,'run-')])"), "2")
        XCTAssertEqual(try page.text("count(//figure[@data-chart='coverage']//*[local-name()='circle'])"), "6", "lines, functions, regions × 2 runs")
        for record in records {
            XCTAssertEqual(try page.text("count(//figure[@data-chart='tests']//*[local-name()='a'][@href='#run-\(record.run.uuid)'])"), "1")
        }
        XCTAssertEqual(try page.text("count(//table[contains(@class,'h-tests')]/tbody/tr)"), String(all.count))
        // Each chart's axis labels say something: no y value twice (a failure count of 0–1 printed "1"
        // twice), and the two runs, a few seconds apart, under two different x labels (not one minute twice).
        for chart in ["coverage", "tests", "duration", "failing", "slowest"] {
            let axis = "//figure[@data-chart='\(chart)']//*[local-name()='text'][@class='axis']"
            let count = try XCTUnwrap(Int(try page.text("count(\(axis))")), chart)
            let labels = try (1...max(count, 1)).map { try page.text("(\(axis))[\($0)]") }
            XCTAssertEqual(Set(labels).count, labels.count, "\(chart): \(labels)")
            guard labels != ["no data"] else { continue }
            let xLabels = try page.text("count(//figure[@data-chart='\(chart)']//*[local-name()='text'][@class='axis'][@y='194.0'])")
            XCTAssertEqual(xLabels, "2", "\(chart): a label under the first and the last run: \(labels)")
        }
        for (name, width, height, dark) in [("history-light.png", 1200, 1600, false), ("history-dark.png", 1200, 1600, true), ("history-phone.png", 390, 2200, false)] {
            let png = output.appendingPathComponent(name)
            XCTAssertGreaterThan(try Chromium.screenshot(output.appendingPathComponent("history.html"), theme: dark ? "dark" : "light", width: width, height: height, to: png, in: folder), 20_000, name)
        }
        XCTAssertGreaterThan(try Chromium.screenshot(output.appendingPathComponent("tests.html"), theme: "light", width: 1200, height: 1600, to: output.appendingPathComponent("tests.png"), in: folder), 20_000)
    }

    /// `flaky --history`: one run, an iteration per order with the outcomes flaky.json shows, its findings, history.html linked.
    func testFlakyRunIsRecordedAsItsFlakyJSONSays() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
        let history = folder.appendingPathComponent("history.sqlite"), output = folder.appendingPathComponent("flaky")
        let result = try TestscopeProcess.run(["flaky", "--package-path", package.path, "--runs", "3", "--seed", "7", "--output", output.path,
                                               "--history", history.path, "--quiet"])
        XCTAssertEqual(result.status, 1, "LegacyTests.testAlwaysFails fails in every run: \(result.stderr)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("flaky.json"))) as? [String: Any])
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        let record = try XCTUnwrap(try HistoryStore(url: history, mode: .read).records().first)
        XCTAssertEqual(record.run.command, "flaky")
        XCTAssertEqual(record.run.seed, "7")
        XCTAssertEqual(record.run.exitStatus, 1)
        var stored: [String: [Int: String]] = [:]
        for e in record.executions { stored[e.test, default: [:]][e.iteration] = e.outcome }
        for test in tests {
            let id = try XCTUnwrap(test["id"] as? String), outcomes = try XCTUnwrap(test["outcomes"] as? [String])
            for (iteration, outcome) in outcomes.enumerated() where outcome != "not-run" {
                XCTAssertEqual(stored[id]?[iteration], outcome, "\(id) in order \(iteration)")
            }
            let finding = record.findings.first { $0.test == id }
            XCTAssertEqual(finding?.classification, test["classification"] as? String, id)
            XCTAssertEqual(finding?.runs, test["runs"] as? Int, id)
            XCTAssertEqual(finding?.failedRuns, test["failedRuns"] as? Int, id)
        }
        XCTAssertEqual(record.findings.count, tests.count)
        let flakyPage = try String(contentsOf: output.appendingPathComponent("flaky.html"), encoding: .utf8)
        XCTAssertTrue(flakyPage.contains("href=\"history.html\""))
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("history.html").path))
    }

    /// Synthetic runs (the store's own API) in `count` records.
    func source(_ name: String, runs count: Int, tests: Int = 40) throws -> URL {
        let url = folder.appendingPathComponent(name)
        let store = try HistoryStore(url: url, mode: .write)
        let records = (0..<count).map { i -> HistoryRecord in
            var run = HistoryRun(command: "run", startedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(i) * 60), finishedAt: Date(), exitStatus: 0)
            run.branch = name
            return HistoryRecord(run: run, executions: (0..<tests).map { HistoryExecution(test: "M.S/test\($0)", outcome: ($0 + i) % 7 == 0 ? "failed" : "passed", duration: 0.001 * Double($0)) })
        }
        try store.append(all: records)
        try store.close()
        return url
    }

    func runCount(_ url: URL) throws -> Int { try HistoryStore(url: url, mode: .read).records().count }

    /// Two `history merge` processes writing into one file at once both succeed; merging again adds nothing.
    func testConcurrentMergesBothSucceedAndMergeIsIdempotent() throws {
        let a = try source("a.sqlite", runs: 150), b = try source("b.sqlite", runs: 150)
        let into = folder.appendingPathComponent("all.sqlite")
        let results = Locked<[TestscopeProcess.Result]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            // a, b, a, b: four writers at once, two of them with runs already stored by another.
            let result = try? TestscopeProcess.run(["history", "merge", (i % 2 == 0 ? a : b).path, "--into", into.path])
            results.withLock { $0.append(result ?? TestscopeProcess.Result(status: -1, stdout: "", stderr: "did not start")) }
        }
        for result in results.withLock({ $0 }) { XCTAssertEqual(result.status, 0, result.stderr) }
        XCTAssertEqual(try runCount(into), 300)
        let again = try TestscopeProcess.run(["history", "merge", a.path, b.path, a.path, "--into", into.path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("0 runs added, 450 already there"), again.stdout)
        XCTAssertEqual(try runCount(into), 300)
        let shown = try TestscopeProcess.run(["history", into.path, "--branch", "a.sqlite"])
        XCTAssertTrue(shown.stdout.contains("150 runs (on branch a.sqlite)"), shown.stdout)
    }

    /// One `testscope: error:` line naming the file, status 65.
    func assertRefused(_ result: TestscopeProcess.Result, _ path: String, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 65, result.stderr, file: file, line: line)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("testscope: error: history \(path)"), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(words), result.stderr, file: file, line: line)
    }

    func testBadHistoryFilesAreRefusedAndLeftUntouched() throws {
        // Not SQLite: `history`, `merge --into` and `run --history` (before the build: no .build is touched).
        let notes = folder.appendingPathComponent("notes.sqlite")
        try Data("my notes\n".utf8).write(to: notes)
        assertRefused(try TestscopeProcess.run(["history", notes.path]), notes.path, "not an SQLite file")
        let good = try source("good.sqlite", runs: 3)
        assertRefused(try TestscopeProcess.run(["history", "merge", good.path, "--into", notes.path]), notes.path, "not an SQLite file")
        let started = Date()
        assertRefused(try TestscopeProcess.run(["run", "--package-path", TestscopeProcess.samples.appendingPathComponent("packages/Shapes").path,
                                                "--output", folder.appendingPathComponent("out").path, "--history", notes.path]), notes.path, "not an SQLite file")
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "refused before the build")
        XCTAssertEqual(try Data(contentsOf: notes), Data("my notes\n".utf8))

        // A newer schema.
        let newer = try source("newer.sqlite", runs: 2)
        try python("import sqlite3; c = sqlite3.connect('\(newer.path)'); c.execute('pragma user_version = 7'); c.commit()")
        let newerBytes = try Data(contentsOf: newer)
        assertRefused(try TestscopeProcess.run(["history", "merge", good.path, "--into", newer.path]), newer.path, "schema version 7")
        assertRefused(try TestscopeProcess.run(["history", newer.path]), newer.path, "newer Testscope")
        XCTAssertEqual(try Data(contentsOf: newer), newerBytes)

        // Another program's database.
        let foreign = folder.appendingPathComponent("app.db")
        try python("import sqlite3; c = sqlite3.connect('\(foreign.path)'); c.execute('create table notes(x)'); c.commit()")
        let foreignBytes = try Data(contentsOf: foreign)
        assertRefused(try TestscopeProcess.run(["history", "merge", good.path, "--into", foreign.path]), foreign.path, "another program")
        XCTAssertEqual(try Data(contentsOf: foreign), foreignBytes)

        // A missing file to read.
        let missing = folder.appendingPathComponent("missing.sqlite")
        assertRefused(try TestscopeProcess.run(["history", missing.path]), missing.path, "does not exist")
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
    }

    /// Another process holds the write lock: after TESTSCOPE_HISTORY_TIMEOUT, one line; the runs stored stay.
    func testLockedHistoryIsOneLineAndKeepsItsRuns() throws {
        let target = try source("target.sqlite", runs: 2), more = try source("more.sqlite", runs: 5)
        let ready = folder.appendingPathComponent("ready")
        let holder = DispatchGroup()
        let script = """
            import sqlite3, time, pathlib
            c = sqlite3.connect('\(target.path)', isolation_level=None)
            c.execute('begin exclusive')
            pathlib.Path('\(ready.path)').touch()
            time.sleep(4)
            c.execute('rollback')
            """
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        DispatchQueue.global().async(group: holder) { _ = try? ProcessRunner.run(python, ["-c", script]) }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: ready.path), Date() < deadline { usleep(20_000) }
        let result = try TestscopeProcess.run(["history", "merge", more.path, "--into", target.path], environment: ["TESTSCOPE_HISTORY_TIMEOUT": "1"])
        assertRefused(result, target.path, "locked by another process")
        holder.wait()
        XCTAssertEqual(try runCount(target), 2)
    }

    /// The file size limit (RLIMIT_FSIZE through `ulimit -f`, as a full disk): one line, no run added, the file still sound.
    func testFullDiskAddsNothingAndKeepsTheFileSound() throws {
        let target = try source("target.sqlite", runs: 2, tests: 5), big = try source("big.sqlite", runs: 400)
        let sizeKB = ((try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0) / 1024 + 64
        let before = try Data(contentsOf: target)
        let script = "ulimit -f \(sizeKB); exec \"$0\" history merge \"$1\" --into \"$2\""
        let result = try TestscopeProcess.run(["-c", script, TestscopeProcess.executable.path, big.path, target.path], program: URL(fileURLWithPath: "/bin/bash"))
        assertRefused(result, target.path, "could not be written")
        XCTAssertEqual(try Data(contentsOf: target), before, "the file's bytes are as they were")
        XCTAssertEqual(try runCount(target), 2)
        try python("import sqlite3, sys; c = sqlite3.connect('\(target.path)'); r = c.execute('pragma integrity_check').fetchone()[0]; sys.exit(0 if r == 'ok' else 1)")
        // With room again, the same merge goes through.
        let retry = try TestscopeProcess.run(["history", "merge", big.path, "--into", target.path])
        XCTAssertEqual(retry.status, 0, retry.stderr)
        XCTAssertEqual(try runCount(target), 402)
    }

    /// docs/ci's history examples parse (PyYAML) and carry the same file they pass to --history.
    func testCIHistoryExamplesCarryTheFileTheyRecordInto() throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let ci = TestscopeProcess.repoRoot.appendingPathComponent("docs/ci")
        let script = """
            import sys, yaml
            d = yaml.safe_load(open(sys.argv[1]))
            if 'jobs' in d:
                steps = d['jobs']['test']['steps']
                runs = [s['run'] for s in steps if 'run' in s]
                carried = [s['with']['path'] for s in steps if str(s.get('uses', '')).startswith('actions/cache/')]
            else:
                job = d['test-with-history']
                runs = job['script'] + job['after_script']
                carried = job['cache']['paths']
            record = [r for r in runs if '--history' in r]
            assert len(record) == 1, record
            file = record[0].split('--history')[1].split()[0]
            assert carried and all(c == file for c in carried), (carried, file)
            assert any(r.startswith('testscope history ' + file) for r in runs), runs
            print(file)
            """
        for name in ["github-actions-history.yml", "gitlab-ci-history.yml"] {
            let result = try ProcessRunner.run(python, ["-c", script, ci.appendingPathComponent(name).path])
            XCTAssertTrue(result.succeeded, "\(name): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, "testscope-history.sqlite\n", name)
        }
    }

    /// docs/ci's team-history examples parse (PyYAML), run PostgreSQL as a service, record into the URL they
    /// show, and keep the password out of it (PGPASSWORD from a secret: a URL shows in `ps`).
    func testCIPostgresExamplesRecordIntoAServiceWithThePasswordOutOfTheURL() throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let ci = TestscopeProcess.repoRoot.appendingPathComponent("docs/ci")
        let script = """
            import re, sys, yaml
            d = yaml.safe_load(open(sys.argv[1]))
            if 'jobs' in d:
                job = d['jobs']['test']
                env, runs = job['env'], [s['run'] for s in job['steps'] if 'run' in s]
                images = [s['image'] for s in job['services'].values()]
            else:
                job = d['test-with-team-history']
                env, runs = job['variables'], job['script'] + job['after_script']
                images = [s['name'] for s in job['services']]
            assert any(i.startswith('postgres:') for i in images), images
            url = env['TESTSCOPE_HISTORY_URL']
            assert re.match(r'postgresql://[^:@/]+@[^/]+/\\w+$', url), url
            assert 'secrets.' in env['PGPASSWORD'] or env['PGPASSWORD'].startswith('$'), env['PGPASSWORD']
            record = [r for r in runs if r.startswith('testscope run ')]
            assert len(record) == 1 and '--history "$TESTSCOPE_HISTORY_URL"' in record[0], record
            assert any(r.startswith('testscope history "$TESTSCOPE_HISTORY_URL"') for r in runs), runs
            print(url)
            """
        for name in ["github-actions-history-postgres.yml", "gitlab-ci-history-postgres.yml"] {
            let result = try ProcessRunner.run(python, ["-c", script, ci.appendingPathComponent(name).path])
            XCTAssertTrue(result.succeeded, "\(name): \(result.stderrText)")
            XCTAssertEqual(result.stdoutText, "postgresql://testscope@postgres:5432/history\n", name)
        }
    }

    func python(_ code: String) throws {
        let python = try XCTUnwrap(Toolchain.findInPath("python3", environment: ProcessInfo.processInfo.environment))
        let result = try ProcessRunner.run(python, ["-c", code])
        XCTAssertTrue(result.succeeded, result.stderrText)
    }
}
