import Foundation
import TestscopeExecution
import XCTest

/// `--diff-base` and `--baseline` on a real git repository: a copy of the Inventory fixture in a
/// subfolder, whose base commit lacks some functions that the next commit adds back, reported from
/// Inventory's recorded export. Classifications are checked against the model's own lines (its
/// coverage.json), and the diff line coverage against diff-cover's on our LCOV.
final class DiffCoverageTests: XCTestCase {
    var folder: URL!
    var repo: URL { folder.appendingPathComponent("repo") }
    var package: URL { repo.appendingPathComponent("packages/Inventory") }
    var output: URL { folder.appendingPathComponent("out") }
    let discount = "Sources/InventoryCore/Pricing/Discount.swift"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("diffcov-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        // `cp -p` keeps the modification times: the sources are not newer than the recorded data. Not the
        // fixture's .build (other tests build it: tens of MB copied for nothing).
        let fixture = TestscopeProcess.samples.appendingPathComponent("packages/Inventory")
        let sources = try FileManager.default.contentsOfDirectory(atPath: fixture.path).filter { !$0.hasPrefix(".build") }.sorted()
        _ = try XCTUnwrap(TestscopeProcess.output(of: ["cp", "-Rp"] + sources.map { fixture.appendingPathComponent($0).path } + [package.path]))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    @discardableResult
    func git(_ arguments: [String], in directory: URL? = nil) throws -> String {
        let git = try XCTUnwrap(Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment), "git is required")
        let result = try ProcessRunner.run(git, ["-C", (directory ?? repo).path, "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments)
        XCTAssertTrue(result.succeeded, "git \(arguments): \(result.stderrText)")
        return result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Commits the package with `removed` lines (1-based, per file) left out, then commits them back on a branch.
    func makeChange(_ removed: [String: [ClosedRange<Int>]]) throws {
        var full: [String: String] = [:]
        for (file, ranges) in removed {
            let url = package.appendingPathComponent(file)
            full[file] = try String(contentsOf: url, encoding: .utf8)
            let lines = full[file]!.split(separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.enumerated().filter { i, _ in !ranges.contains { $0.contains(i + 1) } }.map(\.element)
            try kept.joined(separator: "\n").write(to: url, atomically: false, encoding: .utf8)
        }
        try git(["init", "-q", "-b", "main", "."])
        try git(["add", "."])
        try git(["commit", "-qm", "base"])
        try git(["checkout", "-qb", "feature"])
        for (file, text) in full {
            let url = package.appendingPathComponent(file)
            try text.write(to: url, atomically: false, encoding: .utf8)
            // Back to the recorded time, so the model does not warn that the source changed after the run.
            let original = TestscopeProcess.samples.appendingPathComponent("packages/Inventory/\(file)")
            let date = try FileManager.default.attributesOfItem(atPath: original.path)[.modificationDate]
            try FileManager.default.setAttributes([.modificationDate: date as Any], ofItemAtPath: url.path)
        }
        try git(["commit", "-qam", "change"])
    }

    func report(_ extra: [String], in directory: URL? = nil) throws -> TestscopeProcess.Result {
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: TestscopeProcess.samples.appendingPathComponent("recorded/Inventory/meta.json"))) as? [String: Any]
        let root = try XCTUnwrap(meta?["packageRoot"] as? String)
        return try TestscopeProcess.run(["report", "--package-path", package.path,
                                         "--export", TestscopeProcess.samples.appendingPathComponent("recorded/Inventory/coverage.json").path,
                                         "--path-equivalence", "\(root),\(package.path)", "--output", output.path] + extra, in: directory ?? package)
    }

    func json(_ name: String = "coverage.json") throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent(name))) as? [String: Any])
    }

    /// Every added line classified as the model's own line data says, the gates and the HTML marks.
    func testChangedLinesAreClassifiedFromTheModelsLinesAndTheGatesNameTheRanges() throws {
        // orderTotal (covered lines, two one-line guards that are partial, a blank line) and unusedBulkPrice (never called, with a comment).
        try makeChange([discount: [31...42, 51...57]])
        let result = try report(["--diff-base", "main", "--format", "json,html", "--fail-under-diff", "95", "--max-uncovered-diff-lines", "0"])
        XCTAssertEqual(result.status, 2, result.stderr)
        let coverage = try json()
        let diff = try XCTUnwrap(coverage["diff"] as? [String: Any])
        let files = try XCTUnwrap(diff["files"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["path"] as? String }, [discount])
        let changed = try XCTUnwrap(files[0]["changedLines"] as? [[Int]])
        XCTAssertEqual(changed, [[31, 42], [51, 57]])

        // What the model says about each of those lines: its count, partial spans, and the source text.
        let model = try XCTUnwrap((coverage["files"] as? [[String: Any]])?.first { $0["path"] as? String == discount })
        var counts: [Int: Int] = [:]
        for line in model["lines"] as? [[String: Any]] ?? [] { counts[line["line"] as! Int] = line["count"] as? Int ?? 0 }
        let partial = Set((model["partialLines"] as? [[String: Any]] ?? []).map { $0["line"] as! Int })
        let source = try String(contentsOf: package.appendingPathComponent(discount), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var expected: (covered: Int, total: Int, uncovered: [Int], partial: [Int]) = (0, 0, [], [])
        for line in Array(31...42) + Array(51...57) {
            let text = source[line - 1].trimmingCharacters(in: .whitespaces)
            guard let count = counts[line], !text.isEmpty, !text.hasPrefix("//") else { continue }
            expected.total += 1
            if count == 0 { expected.uncovered.append(line) } else { expected.covered += 1 }
            if count > 0 && partial.contains(line) { expected.partial.append(line) }
        }
        XCTAssertFalse(expected.uncovered.isEmpty)
        XCTAssertFalse(expected.partial.isEmpty, "the change has partial lines")
        let lines = try XCTUnwrap(files[0]["lines"] as? [String: Any])
        XCTAssertEqual(lines["covered"] as? Int, expected.covered)
        XCTAssertEqual(lines["total"] as? Int, expected.total)
        func flat(_ key: String) -> [Int] { (files[0][key] as? [[Int]] ?? []).flatMap { Array($0[0]...$0[1]) } }
        XCTAssertEqual(flat("uncoveredLines"), expected.uncovered)
        XCTAssertEqual(flat("partialLines"), expected.partial)
        XCTAssertEqual(diff["uncoveredLines"] as? Int, expected.uncovered.count)
        // The regions starting on changed lines are a subset of the file's regions.
        let regions = try XCTUnwrap(diff["regions"] as? [String: Any])
        let fileRegions = try XCTUnwrap((model["summary"] as? [String: Any])?["regions"] as? [String: Any])
        XCTAssertGreaterThan(regions["total"] as! Int, regions["covered"] as! Int)
        XCTAssertLessThanOrEqual(regions["total"] as! Int, fileRegions["total"] as! Int)

        // Both gates failed, each naming the file and its uncovered ranges; the terminal lists them too.
        let ranges = (files[0]["uncoveredLines"] as? [[Int]] ?? []).map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])-\($0[1])" }.joined(separator: ", ")
        XCTAssertEqual(result.errorLines.filter { $0.contains("diff gate failed") }.count, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("(--fail-under-diff); uncovered: \(discount):\(ranges)"), result.stderr)
        XCTAssertTrue(result.stderr.contains("(--max-uncovered-diff-lines)"), result.stderr)
        XCTAssertTrue(result.stdout.contains("\(discount): \(expected.covered)/\(expected.total) changed lines; uncovered \(ranges)"), result.stdout)

        // HTML: the changed lines are marked on the file page; the index has the Changes section and its filter.
        let index = try Chromium.load(output.appendingPathComponent("index.html"), in: folder)
        index.assertClean()
        XCTAssertEqual(try index.text("count(//section[@class='changes']//li)"), "1")
        XCTAssertEqual(try index.text("count(//input[@class='only-changed'])"), "1")
        XCTAssertEqual(try index.text("count(//tr[@data-changed='1'])"), "1")
        let pageName = try XCTUnwrap(try index.text("string(//section[@class='changes']//li/a/@href)"))
        let page = try Chromium.load(output.appendingPathComponent(pageName), in: folder)
        page.assertClean()
        let rows = page.sourceRows()
        for line in Array(31...42) + Array(51...57) { XCTAssertTrue(rows[line]?.state.hasSuffix("chg") == true, "line \(line): \(String(describing: rows[line]))") }
        XCTAssertFalse(rows[30]?.state.contains("chg") ?? false)
        for line in expected.partial { XCTAssertEqual(rows[line]?.state, "par chg") }
    }

    /// For a change without partial, blank or comment lines, diff-cover (PyPI) run on our LCOV and the
    /// same git diff gives the same diff line coverage. diff-cover maps LCOV's absolute paths only when
    /// it runs at the repository root.
    func testDiffLineCoverageMatchesDiffCoverOnTheSameChange() throws {
        let diffCover = try XCTUnwrap(Toolchain.findInPath("diff-cover", environment: ProcessInfo.processInfo.environment), "pip install diff-cover")
        // Bin.swift: `count` (never ran) and firstMatch (ran; no partial line, no blank or comment line inside).
        try makeChange(["Sources/InventoryCore/Models/Bin.swift": [11...11, 29...38]])
        let result = try report(["--diff-base", "main", "--format", "json,lcov,markdown"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let diff = try XCTUnwrap(try json()["diff"] as? [String: Any])
        XCTAssertEqual(diff["partialLines"] as? Int, 0)
        let lines = try XCTUnwrap(diff["lines"] as? [String: Any])
        // summary.md (the pull-request comment) shows the same figures as coverage.json.
        let markdown = try String(contentsOf: output.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("**Changed lines** (against main): lines "), markdown)
        XCTAssertTrue(markdown.contains("(\(try XCTUnwrap(lines["covered"] as? Int))/\(try XCTUnwrap(lines["total"] as? Int)))"), markdown)
        XCTAssertTrue(markdown.contains("Bin.swift"), markdown)
        let theirs = folder.appendingPathComponent("diff-cover.json")
        let run = try ProcessRunner.run(diffCover, [output.appendingPathComponent("coverage.lcov").path, "--compare-branch=main",
                                                    "--json-report", theirs.path], currentDirectory: repo)
        XCTAssertEqual(run.status, 0, run.stderrText)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: theirs)) as? [String: Any])
        XCTAssertEqual(report["total_num_lines"] as? Int, lines["total"] as? Int)
        XCTAssertEqual(report["total_num_violations"] as? Int, diff["uncoveredLines"] as? Int)
        let stats = try XCTUnwrap((report["src_stats"] as? [String: [String: Any]])?["packages/Inventory/Sources/InventoryCore/Models/Bin.swift"])
        XCTAssertEqual(try XCTUnwrap(stats["percent_covered"] as? Double), try XCTUnwrap(lines["percent"] as? Double), accuracy: 0.001)
        XCTAssertGreaterThan(diff["uncoveredLines"] as? Int ?? 0, 0)
    }

    /// No executable changed line: said plainly, and the diff gates pass.
    func testAChangeWithoutExecutableLinesPassesTheGate() throws {
        try makeChange([discount: [51...51, 53...54]])  // a doc comment, a comment and a blank line
        let result = try report(["--diff-base", "main", "--format", "json", "--fail-under-diff", "100", "--max-uncovered-diff-lines", "0"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("no executable lines changed"), result.stdout)
        let diff = try XCTUnwrap(try json()["diff"] as? [String: Any])
        XCTAssertEqual(diff["executableLinesChanged"] as? Bool, false)
    }

    /// The ratchet: a baseline of the base commit's report; the change adds uncovered lines to a file
    /// and a new file, so it regresses; the baseline's commit is recorded.
    func testTheBaselineRatchetReportsFilesThatGainedUncoveredLines() throws {
        try makeChange([discount: [51...57]])
        let baseline = folder.appendingPathComponent("baseline.json")
        // The baseline is this report itself: no regression.
        XCTAssertEqual(try report(["--format", "json", "--baseline", baseline.path, "--update-baseline"]).status, 0)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: baseline)) as? [String: Any])
        XCTAssertEqual(written["commit"] as? String, try git(["rev-parse", "HEAD"]))
        let same = try report(["--format", "json", "--baseline", baseline.path])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdout.contains("no regression"), same.stdout)

        // Edit the baseline into what the base commit had for Discount.swift: fewer uncovered lines.
        var files = try XCTUnwrap(written["files"] as? [String: [String: [String: Int]]])
        let current = try XCTUnwrap(files[discount]?["lines"])
        files[discount]?["lines"] = ["covered": current["covered"]!, "total": current["covered"]! + 1]
        var edited = written
        edited["files"] = files
        try JSONSerialization.data(withJSONObject: edited).write(to: baseline)
        let regressed = try report(["--format", "json,markdown", "--baseline", baseline.path])
        XCTAssertEqual(regressed.status, 2, regressed.stderr)
        let markdown = try String(contentsOf: output.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(markdown.contains("| coverage | covered | total | % | change |"), markdown)
        XCTAssertTrue(markdown.contains("**Files with more uncovered lines than the baseline:**"), markdown)
        XCTAssertTrue(markdown.contains("| \(discount) | 1 | \(current["total"]! - current["covered"]!) |"), markdown)
        XCTAssertTrue(regressed.stderr.contains("baseline gate failed"), regressed.stderr)
        XCTAssertTrue(regressed.stderr.contains("\(discount) (\(current["total"]! - current["covered"]!) uncovered)"), regressed.stderr)
        let comparison = try XCTUnwrap(try json()["baseline"] as? [String: Any])
        XCTAssertEqual((comparison["regressions"] as? [[String: Any]])?.map { $0["path"] as? String }, [discount])
        XCTAssertEqual((comparison["regressions"] as? [[String: Any]])?.first?["addedUncoveredLines"] as? Int, current["total"]! - current["covered"]! - 1)
    }

    /// A file renamed by the change keeps its baseline through git's rename detection (with
    /// --diff-base); without it, the file is new and all its uncovered lines count as new.
    func testARenamedFileIsComparedWithItsOldBaselineEntry() throws {
        let old = "Sources/InventoryCore/Pricing/OldDiscount.swift"
        let url = package.appendingPathComponent(discount)
        let full = try String(contentsOf: url, encoding: .utf8)
        let date = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
        try FileManager.default.moveItem(at: url, to: package.appendingPathComponent(old))
        try git(["init", "-q", "-b", "main", "."])
        try git(["add", "."])
        try git(["commit", "-qm", "base"])
        try git(["checkout", "-qb", "feature"])
        try git(["mv", "packages/Inventory/\(old)", "packages/Inventory/\(discount)"])
        try full.write(to: url, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: date as Any], ofItemAtPath: url.path)
        try git(["commit", "-qam", "rename"])

        // The baseline as main would have written it: the file under its old name, one uncovered line fewer.
        let baseline = folder.appendingPathComponent("baseline.json")
        XCTAssertEqual(try report(["--format", "json", "--baseline", baseline.path, "--update-baseline"]).status, 0)
        var written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: baseline)) as? [String: Any])
        var files = try XCTUnwrap(written["files"] as? [String: [String: [String: Int]]])
        var entry = try XCTUnwrap(files.removeValue(forKey: discount))
        let lines = try XCTUnwrap(entry["lines"])
        entry["lines"] = ["covered": lines["covered"]!, "total": lines["total"]! - 1]
        files[old] = entry
        written["files"] = files
        try JSONSerialization.data(withJSONObject: written).write(to: baseline)

        let followed = try report(["--format", "json", "--baseline", baseline.path, "--diff-base", "main"])
        XCTAssertEqual(followed.status, 2, followed.stderr)
        let diff = try XCTUnwrap(try json()["diff"] as? [String: Any])
        XCTAssertEqual(diff["changedLines"] as? Int, 0, "a pure rename adds no line")
        var regression = try XCTUnwrap(((try json()["baseline"] as? [String: Any])?["regressions"] as? [[String: Any]])?.first)
        XCTAssertEqual(regression["baselinePath"] as? String, old)
        XCTAssertEqual(regression["addedUncoveredLines"] as? Int, 1)
        XCTAssertTrue(followed.stdout.contains("\(discount) (was \(old)): uncovered lines"), followed.stdout)

        let unfollowed = try report(["--format", "json", "--baseline", baseline.path])
        XCTAssertEqual(unfollowed.status, 2, unfollowed.stderr)
        regression = try XCTUnwrap(((try json()["baseline"] as? [String: Any])?["regressions"] as? [[String: Any]])?.first)
        XCTAssertTrue(regression["baselinePath"] is NSNull)
        XCTAssertEqual(regression["addedUncoveredLines"] as? Int, lines["total"]! - lines["covered"]!)
    }

    /// Working-tree changes count only with --diff-include-uncommitted.
    func testUncommittedChangesCountOnlyWhenAskedFor() throws {
        // main lacks 31-42 and 51-57; the branch commits 51-57 (at 39-45 there, without 31-42) and leaves 31-42 uncommitted.
        try makeChange([discount: [31...42, 51...57]])
        let url = package.appendingPathComponent(discount)
        let full = try String(contentsOf: url, encoding: .utf8)
        let date = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate]
        let lines = full.split(separator: "\n", omittingEmptySubsequences: false)
        try (Array(lines[..<30]) + Array(lines[42...])).joined(separator: "\n").write(to: url, atomically: false, encoding: .utf8)
        try git(["commit", "-qam", "without orderTotal"])
        try full.write(to: url, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: date as Any], ofItemAtPath: url.path)

        let committed = try report(["--format", "json", "--diff-base", "main"])
        XCTAssertEqual(committed.status, 0)
        XCTAssertTrue(committed.stderr.contains("1 file has uncommitted changes that --diff-base leaves out"), committed.stderr)
        var files = try XCTUnwrap((try json()["diff"] as? [String: Any])?["files"] as? [[String: Any]])
        XCTAssertEqual(files.first?["changedLines"] as? [[Int]], [[39, 45]])
        XCTAssertEqual(try report(["--format", "json", "--diff-base", "main", "--diff-include-uncommitted"]).status, 0)
        let diff = try XCTUnwrap(try json()["diff"] as? [String: Any])
        files = try XCTUnwrap(diff["files"] as? [[String: Any]])
        XCTAssertEqual(files.first?["changedLines"] as? [[Int]], [[31, 42], [51, 57]])
        XCTAssertEqual(diff["includesUncommitted"] as? Bool, true)
    }

    /// Bad input: one line on stderr each, status 65 (or 64 for options that need another).
    func testBadInputGetsOneClearLineAndItsStatus() throws {
        // Not a git repository.
        var result = try report(["--diff-base", "main", "--format", "json"])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("is not inside a git repository"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("coverage.json").path))

        // `run` checks it before building or running anything.
        result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--diff-base", "main"])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.contains("is not inside a git repository"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: package.appendingPathComponent(".build").path))

        try makeChange([discount: [51...57]])
        result = try report(["--diff-base", "origin/nope", "--format", "json"])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertEqual(result.errorLines, ["testscope: error: --diff-base origin/nope is not a commit in this repository; fetch it (e.g. `git fetch origin main` for origin/main) or check the name"])

        // A shallow clone of the feature branch: main is not there, and the message says how to fetch it.
        let shallow = folder.appendingPathComponent("shallow")
        try git(["clone", "-q", "--depth", "1", "--branch", "feature", "file://\(repo.path)", shallow.path], in: folder)
        let shallowPackage = shallow.appendingPathComponent("packages/Inventory")
        result = try TestscopeProcess.run(["report", "--package-path", shallowPackage.path, "--export",
                                           TestscopeProcess.samples.appendingPathComponent("recorded/Inventory/coverage.json").path,
                                           "--output", output.path, "--diff-base", "origin/main"], in: shallowPackage)
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("shallow clone: `git fetch --unshallow`"), result.stderr)

        // Baselines: not JSON, another schema, another package, missing.
        let baseline = folder.appendingPathComponent("baseline.json")
        for (content, message) in [("{not json", "is not a Testscope baseline (not valid JSON)"),
                                   (#"{"schema": 3}"#, "is not a Testscope baseline"),
                                   (#"{"schema":"https://testscope.dev/schemas/baseline/1","generator":"g","createdAt":"c","package":"Other","totals":{"lines":{"covered":1,"total":2},"regions":{"covered":1,"total":2}},"files":{"Sources/Other/X.swift":{"lines":{"covered":1,"total":2},"regions":{"covered":1,"total":2}}}}"#, "is from another package (Other")] {
            try content.write(to: baseline, atomically: true, encoding: .utf8)
            result = try report(["--format", "json", "--baseline", baseline.path])
            XCTAssertEqual(result.status, 65, result.stderr)
            XCTAssertEqual(result.errorLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), result.stderr)
        }
        result = try report(["--format", "json", "--baseline", folder.appendingPathComponent("none.json").path])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stderr.contains("write it with --update-baseline"), result.stderr)
        result = try report(["--format", "json", "--fail-under-diff", "80"])
        XCTAssertEqual(result.status, 64)
        XCTAssertTrue(result.stderr.contains("need --diff-base REF"), result.stderr)
    }
}
