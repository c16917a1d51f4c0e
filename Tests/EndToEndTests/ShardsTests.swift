import Foundation
import TestscopeHistory
import XCTest

/// `testscope run --shard K/N` and `testscope merge`, real runs: on Shapes (5 XCTest and 2 Swift Testing
/// tests, no state shared across tests) the merged shards' report equals the unsharded run's, every line's
/// count and every test's outcome; on Inventory (a failing test in each library, in two test modules) too,
/// but for the code a global of the test module runs once per test process; bad shards are one line and
/// exit 65 (64 for usage), with no output folder.
final class ShardsTests: XCTestCase {
    /// The package copies (TestscopeProcess.fixtureCopy), each with the folders of its unsharded run and
    /// of two shards, made once; `root` is this class's own scratch folder.
    private nonisolated(unsafe) static var root: URL!
    private nonisolated(unsafe) static var copies: [String: URL] = [:]
    private nonisolated(unsafe) static var setupError: String?

    private var package: URL { Self.copies["Shapes"]! }
    private var inventory: URL { Self.copies["Inventory"]! }
    private func folder(_ name: String) -> URL { package.appendingPathComponent(name) }

    override class func setUp() {
        super.setUp()
        do {
            root = try TestscopeProcess.temporaryDirectory("shards")
            for name in ["Shapes", "Inventory"] {
                let package = try TestscopeProcess.fixtureCopy(name)
                copies[name] = package
                for (output, shard) in [("whole", nil), ("two-1", "1/2"), ("two-2", "2/2")] as [(String, String?)] {
                    let run = try TestscopeProcess.run(["run", "--format", "json", "--quiet", "--output", output] + (shard.map { ["--shard", $0] } ?? []), in: package)
                    // Inventory has a deliberate failure in each library (exit 1 where one of them ran).
                    guard run.status == 0 || (name == "Inventory" && run.status == 1) else {
                        setupError = "\(name) run \(output): status \(run.status): \(run.stderr)"
                        return
                    }
                }
            }
        } catch {
            setupError = "\(error)"
        }
    }

    override class func tearDown() {
        if let root { try? FileManager.default.removeItem(at: root) }
        super.tearDown()
    }

    override func setUpWithError() throws {
        if let error = Self.setupError { XCTFail(error) }
        try XCTSkipIf(Self.setupError != nil)
    }

    private func json(_ folder: URL, _ name: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name))) as? [String: Any])
    }

    /// Every file's line counts (`path:line=count`), functions and totals of a coverage.json.
    private func coverage(_ folder: URL) throws -> (lines: [String], functions: [String], totals: NSDictionary) {
        let files = try XCTUnwrap(try json(folder, "coverage.json")["files"] as? [[String: Any]])
        var lines: [String] = [], functions: [String] = []
        for file in files {
            let path = try XCTUnwrap(file["path"] as? String)
            for line in try XCTUnwrap(file["lines"] as? [[String: Any]]) { lines.append("\(path):\(line["line"] ?? "?")=\(line["count"] ?? "?")") }
            for function in (file["functions"] as? [[String: Any]]) ?? [] {
                functions.append("\(path):\(function["name"] ?? "?")=\(function["count"] ?? function["executionCount"] ?? "?")")
            }
        }
        return (lines.sorted(), functions.sorted(), try XCTUnwrap(try json(folder, "coverage.json")["totals"] as? NSDictionary))
    }

    /// Each test's id, arguments and outcome in tests.json, sorted.
    private func outcomes(_ folder: URL) throws -> [String] {
        try XCTUnwrap(try json(folder, "tests.json")["tests"] as? [[String: Any]])
            .map { "\($0["id"] as? String ?? "?") \($0["arguments"] as? String ?? "") \($0["outcome"] as? String ?? "?")" }.sorted()
    }

    private func manifest(_ folder: URL) throws -> [String: Any] { try json(folder, ".testscope-shard.json") }

    private func assertSameReport(_ merged: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let wholeFolder = merged.deletingLastPathComponent().appendingPathComponent("whole")
        let whole = try coverage(wholeFolder), mine = try coverage(merged)
        XCTAssertFalse(whole.lines.isEmpty, file: file, line: line)
        XCTAssertEqual(mine.lines, whole.lines, "per-line counts", file: file, line: line)
        XCTAssertEqual(mine.functions, whole.functions, "functions", file: file, line: line)
        XCTAssertEqual(mine.totals, whole.totals, "totals", file: file, line: line)
        XCTAssertEqual(try outcomes(merged), try outcomes(wholeFolder), "test outcomes", file: file, line: line)
        XCTAssertEqual(try json(merged, "tests.json")["summary"] as? NSDictionary, try json(wholeFolder, "tests.json")["summary"] as? NSDictionary,
                       file: file, line: line)
    }

    func testTwoShardsMergeIntoTheUnshardedRunsReport() throws {
        let first = try manifest(folder("two-1")), second = try manifest(folder("two-2"))
        XCTAssertEqual(first["shard"] as? String, "1/2")
        XCTAssertEqual(first["partition"] as? String, "hash")
        let buildID = try XCTUnwrap(first["buildID"] as? String)
        XCTAssertEqual(second["buildID"] as? String, buildID, "both shards ran the same build")
        XCTAssertEqual(buildID.count, 40, "a GNU build ID (SHA-1) in hex: \(buildID)")
        XCTAssertTrue((first["toolchain"] as? String)?.contains("Swift version") == true, "\(first)")
        // Every listed test in exactly one shard; both libraries in both shards' pool.
        let ran = try XCTUnwrap(first["tests"] as? [String]) + XCTUnwrap(second["tests"] as? [String])
        XCTAssertEqual(ran.sorted(), try TestscopeProcess.listedTests(package).sorted())
        XCTAssertEqual(first["partitioned"] as? Int, ran.count)
        // Each shard ran only its own tests, and kept its raw profiles.
        let firstRan = Set(try outcomes(folder("two-1")).map { String($0.split(separator: " ")[0]) })
        XCTAssertEqual(firstRan, Set(try XCTUnwrap(first["tests"] as? [String])))
        let record = try json(folder("two-1"), ".testscope-run.json")
        let profiles = try XCTUnwrap(record["profiles"] as? [String])
        XCTAssertFalse(profiles.isEmpty)
        for profile in profiles { XCTAssertTrue(FileManager.default.fileExists(atPath: folder("two-1").appendingPathComponent(profile).path), profile) }

        let merge = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "merged-2", "--format", "json,junit,cobertura"], in: package)
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertFalse(merge.stderr.contains("warning"), merge.stderr)
        try assertSameReport(folder("merged-2"))
        for name in ["junit.xml", "cobertura.xml"] { XCTAssertTrue(FileManager.default.fileExists(atPath: folder("merged-2/\(name)").path), name) }
        // Gates apply once, to the merged report: a threshold above the unsharded run's total fails it.
        let percent = try XCTUnwrap(((try coverage(folder("whole")).totals["lines"]) as? NSDictionary)?["percent"] as? Double)
        XCTAssertLessThan(percent, 100)
        let gated = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "merged-gate", "--format", "json", "--quiet",
                                              "--fail-under-lines", String(percent + 0.01)], in: package)
        XCTAssertEqual(gated.status, 2, gated.stderr)
        let passes = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "merged-gate", "--format", "json", "--quiet",
                                               "--fail-under-lines", String(percent - 0.01)], in: package)
        XCTAssertEqual(passes.status, 0, passes.stderr)
    }

    func testInventoryShardsOfTwoTestModulesWithFailures() throws {
        let whole = inventory.appendingPathComponent("whole"), merged = inventory.appendingPathComponent("merged")
        let merge = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "merged", "--format", "json"], in: inventory)
        XCTAssertEqual(merge.status, 1, "a failing test in any shard fails the merged report: \(merge.stderr)")
        XCTAssertEqual(try outcomes(merged), try outcomes(whole))
        XCTAssertTrue(try outcomes(merged).contains { $0.hasSuffix(" failed") })
        XCTAssertEqual(try json(merged, "tests.json")["summary"] as? NSDictionary, try json(whole, "tests.json")["summary"] as? NSDictionary)
        let a = try coverage(whole), b = try coverage(merged)
        XCTAssertEqual(b.totals, a.totals, "the same lines, functions and regions covered")
        try assertMergeAppendsToHistory()
        // Every count is the unsharded run's, except where a global of the Swift Testing module (`items`, two
        // `Item(sku:…)`s) is initialized once per test process: each shard's process that reads it runs
        // Item.init again (docs/shards.md).
        let differing = Set(b.lines).symmetricDifference(a.lines).map { String($0.split(separator: "=")[0]) }
        let initLines = try itemInitLines(whole)
        XCTAssertFalse(initLines.isEmpty)
        XCTAssertTrue(Set(differing).isSubset(of: initLines), "\(differing.sorted())")
        func count(_ lines: [String], _ key: String) -> Int? { lines.first { $0.hasPrefix(key + "=") }.flatMap { Int($0.split(separator: "=")[1]) } }
        for key in initLines { XCTAssertGreaterThanOrEqual(try XCTUnwrap(count(b.lines, key)), try XCTUnwrap(count(a.lines, key)), key) }
    }

    /// `merge --history`: the merged run is appended once, as `merge`, with the outcomes and totals of
    /// the merged tests.json and coverage.json; history.html is drawn; a second merge adds a second run.
    private func assertMergeAppendsToHistory() throws {
        let history = inventory.appendingPathComponent("history.sqlite")
        let recorded = inventory.appendingPathComponent("merged-history")
        for _ in 1...2 {
            let merge = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "merged-history", "--format", "json,html",
                                                  "--history", history.path, "--quiet"], in: inventory)
            XCTAssertEqual(merge.status, 1, merge.stderr)
        }
        let records = try HistoryStore(url: history, mode: .read).records()
        XCTAssertEqual(records.count, 2)
        let record = try XCTUnwrap(records.last)
        XCTAssertEqual(record.run.command, "merge")
        XCTAssertEqual(record.run.exitStatus, 1)
        let tests = try XCTUnwrap(try json(recorded, "tests.json")["tests"] as? [[String: Any]])
        XCTAssertEqual(record.executions.map { "\($0.test) \($0.outcome)" }.sorted(),
                       tests.map { HistoryExecution.key(id: $0["id"] as? String ?? "?", arguments: $0["arguments"] as? String) + " \($0["outcome"] as? String ?? "?")" }.sorted())
        let lines = try XCTUnwrap(try coverage(recorded).totals["lines"] as? [String: Any])
        XCTAssertEqual(record.run.lines?.covered, lines["covered"] as? Int)
        XCTAssertEqual(record.run.lines?.total, lines["total"] as? Int)
        XCTAssertTrue(FileManager.default.fileExists(atPath: recorded.appendingPathComponent("history.html").path))
    }

    /// `path:line` of Item.init's lines, from the function's range in coverage.json.
    private func itemInitLines(_ folder: URL) throws -> Set<String> {
        let files = try XCTUnwrap(try json(folder, "coverage.json")["files"] as? [[String: Any]])
        var lines = Set<String>()
        for file in files {
            for function in (file["functions"] as? [[String: Any]]) ?? [] where (function["name"] as? String)?.hasPrefix("Item.init(sku:") == true {
                let (first, last) = (try XCTUnwrap(function["line"] as? Int), try XCTUnwrap(function["endLine"] as? Int))
                for line in first...last { lines.insert("\(file["path"] ?? "?"):\(line)") }
            }
        }
        return lines
    }

    func testThreeShardsBalancedByTimingsAndAMissingShard() throws {
        let timings = folder("whole/tests.json").path
        for k in 1...3 {
            let run = try TestscopeProcess.run(["run", "--format", "json", "--quiet", "--output", "three-\(k)", "--shard", "\(k)/3", "--shard-timings", timings], in: package)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(try manifest(folder("three-\(k)"))["partition"] as? String, "durations")
        }
        let merge = try TestscopeProcess.run(["merge", "three-1", "three-2", "three-3", "--output", "merged-3", "--format", "json"], in: package)
        XCTAssertEqual(merge.status, 0, merge.stderr)
        try assertSameReport(folder("merged-3"))

        // Two of three: merged, with a warning naming the missing one.
        let partial = try TestscopeProcess.run(["merge", "three-3", "three-1", "--output", "merged-partial", "--format", "json"], in: package)
        XCTAssertEqual(partial.status, 0, partial.stderr)
        XCTAssertTrue(partial.stderr.contains("warning: shard(s) 2/3 missing"), partial.stderr)
        let expected = try (["three-1", "three-3"].flatMap { try XCTUnwrap(try manifest(folder($0))["tests"] as? [String]) }).sorted()
        XCTAssertEqual(Set(try outcomes(folder("merged-partial")).map { String($0.split(separator: " ")[0]) }).sorted(), expected)
    }

    func testAShardWithoutTestsAndARunThatIsNoShardAnyMore() throws {
        let listed = try TestscopeProcess.listedTests(package).count
        let run = try TestscopeProcess.run(["run", "--format", "json", "--output", "empty", "--shard", "\(listed + 1)/\(listed + 1)"], in: package)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("shard \(listed + 1)/\(listed + 1) has no tests (\(listed) test(s) in \(listed + 1) shards)"), run.stderr)
        XCTAssertEqual(try manifest(folder("empty"))["tests"] as? [String], [])
        // The next, unsharded run into the folder takes the manifest away: it no longer holds a shard.
        let plain = try TestscopeProcess.run(["run", "--format", "json", "--quiet", "--output", "empty"], in: package)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder("empty/.testscope-shard.json").path))
        let merge = try TestscopeProcess.run(["merge", "empty", "--output", "merged-empty"], in: package)
        XCTAssertEqual(merge.status, 65, merge.stderr)
        XCTAssertEqual(merge.errorLines, ["testscope: error: \(folder("empty").path) is not a shard's output folder (no .testscope-shard.json); pass the --output folders of 'testscope run --shard K/N'"])
    }

    func testShardsFromAnotherMachineMapWithPathEquivalence() throws {
        // The package moved (another checkout path), the binary copied beside the shards: as a CI merge job sees them.
        let elsewhere = Self.root.appendingPathComponent("checkout/Shapes")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        for name in ["Package.swift", "Sources", "Tests"] {
            try FileManager.default.copyItem(at: package.appendingPathComponent(name), to: elsewhere.appendingPathComponent(name))
        }
        for name in ["two-1", "two-2"] { try FileManager.default.copyItem(at: folder(name), to: elsewhere.appendingPathComponent(name)) }
        let binary = try TestscopeProcess.testBinary(ofRunIn: folder("whole"))
        let copied = elsewhere.appendingPathComponent(binary.lastPathComponent)
        try FileManager.default.copyItem(at: binary, to: copied)
        let merge = try TestscopeProcess.run(["merge", "two-1", "two-2", "--binary", copied.path, "--output", "merged", "--format", "json",
                                              "--path-equivalence", "\(package.path),\(elsewhere.path)"], in: elsewhere)
        XCTAssertEqual(merge.status, 0, merge.stderr)
        let whole = try coverage(folder("whole")), moved = try coverage(elsewhere.appendingPathComponent("merged"))
        XCTAssertEqual(moved.lines, whole.lines)
        XCTAssertEqual(try outcomes(elsewhere.appendingPathComponent("merged")), try outcomes(folder("whole")))
    }

    func testBadShardsAreOneLineAndNoOutput() throws {
        func assertRefused(_ arguments: [String], status: Int32, _ message: String, line: UInt = #line) throws {
            let output = folder("refused-\(UUID().uuidString.prefix(8))")
            let result = try TestscopeProcess.run(arguments + ["--output", output.path], in: package)
            XCTAssertEqual(result.status, status, result.stderr, line: line)
            XCTAssertEqual(result.errorLines.count, 1, result.stderr, line: line)
            XCTAssertTrue(result.stderr.contains(message), result.stderr, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "nothing written", line: line)
        }
        for bad in ["3/2", "0/2", "a/b"] {
            try assertRefused(["run", "--shard", bad], status: 64, "--shard takes K/N with 1 <= K <= N (e.g. 2/3), not '\(bad)'")
        }
        try assertRefused(["run", "--shard-timings", "whole/tests.json"], status: 64, "--shard-timings needs --shard K/N")
        try assertRefused(["run", "--shard", "1/2", "--shard-timings", "whole/coverage.json"], status: 65, "is not a tests.json of Testscope")
        try assertRefused(["merge"], status: 64, "merge needs the shards' output folders")
        try assertRefused(["merge", "whole", "two-2"], status: 65, "\(folder("whole").path) is not a shard's output folder (no .testscope-shard.json)")
        try assertRefused(["merge", "no-such-folder"], status: 65, "no-such-folder is not a shard's output folder")

        // A shard of another build: its manifest's build ID edited.
        try FileManager.default.copyItem(at: folder("two-2"), to: folder("other-build"))
        let manifestURL = folder("other-build/.testscope-shard.json")
        var edited = try manifest(folder("other-build"))
        let buildID = try XCTUnwrap(edited["buildID"] as? String)
        edited["buildID"] = String(buildID.reversed())
        try JSONSerialization.data(withJSONObject: edited).write(to: manifestURL)
        try assertRefused(["merge", "two-1", "other-build"], status: 65, "the shards ran different builds of the test binary (build IDs: \(buildID) in 1/2, \(String(buildID.reversed())) in 2/2)")
        // A binary of another build than the shards': this test bundle.
        let otherBinary = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: TestscopeProcess.binDirectory.path)
            .first { $0.hasSuffix("PackageTests.xctest") })
        try assertRefused(["merge", "two-1", "two-2", "--binary", TestscopeProcess.binDirectory.appendingPathComponent(otherBinary).path],
                          status: 65, "is another build (build ID ")
        // The same shard twice, a test in two shards, different splits, the output among the shards.
        try assertRefused(["merge", "two-1", "two-1"], status: 65, "shard 1/2 is given twice")
        try FileManager.default.copyItem(at: folder("two-1"), to: folder("relabelled"))
        var relabelled = try manifest(folder("relabelled"))
        relabelled["shard"] = "2/2"
        try JSONSerialization.data(withJSONObject: relabelled).write(to: folder("relabelled/.testscope-shard.json"))
        try assertRefused(["merge", "two-1", "relabelled"], status: 65, "ran in shard 1/2 and in shard 2/2")
        relabelled["shard"] = "2/3"
        try JSONSerialization.data(withJSONObject: relabelled).write(to: folder("relabelled/.testscope-shard.json"))
        try assertRefused(["merge", "two-1", "relabelled"], status: 65, "the shards were cut into different numbers of shards")
        let intoShard = try TestscopeProcess.run(["merge", "two-1", "two-2", "--output", "two-2"], in: package)
        XCTAssertEqual(intoShard.status, 65, intoShard.stderr)
        XCTAssertEqual(intoShard.errorLines, ["testscope: error: the output folder \(folder("two-2").path) is one of the shards' folders; pass another --output DIR for the merged report"])
    }
}
