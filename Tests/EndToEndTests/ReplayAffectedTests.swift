import Foundation
import TestscopeExecution
import XCTest

/// scripts/replay-affected on a repository this test builds: a copy of the Shapes fixture committed with a
/// function-body edit, a comment-only edit, a structural edit (a new declaration), a README edit and a new
/// test. The replay must find no violation, and the selected counts its report prints must be the observe
/// runs' own (each run's tests.json `selection`, which every test has, a new one too).
final class ReplayAffectedTests: XCTestCase {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("testscope-replay-\(UUID().uuidString)")
    var repo: URL { folder.appendingPathComponent("Shapes") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func git(_ arguments: String...) throws {
        let git = try XCTUnwrap(Toolchain.findInPath("git", environment: ProcessInfo.processInfo.environment), "git is required")
        let result = try ProcessRunner.run(git, ["-C", repo.path, "-c", "user.name=t", "-c", "user.email=t@example.com",
                                                 "-c", "commit.gpgsign=false"] + arguments)
        XCTAssertTrue(result.succeeded, "git \(arguments): \(result.stderrText)")
    }

    /// Replaces `old` (which must occur) by `new` in the package's file `path` and commits it.
    func commit(_ path: String, replacing old: String, with new: String, message: String) throws {
        let file = repo.appendingPathComponent(path)
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        XCTAssertTrue(old.isEmpty || text.contains(old), "\(old) not in \(path)")
        try (old.isEmpty ? text + new : text.replacingOccurrences(of: old, with: new)).write(to: file, atomically: true, encoding: .utf8)
        try git("add", "-A")
        try git("commit", "-qm", message)
    }

    func testReplayOfAScriptedHistoryFindsNoViolationAndReportsTheObserveRunsSelection() throws {
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        try files.copyItem(at: TestscopeProcess.samples.appendingPathComponent("packages/Shapes"), to: repo)
        for name in try files.contentsOfDirectory(atPath: repo.path) where name.hasPrefix(".") {
            try files.removeItem(at: repo.appendingPathComponent(name))
        }
        try "/.build\n".write(to: repo.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        try git("init", "-q")
        try git("add", "-A")
        try git("commit", "-qm", "base")
        try commit("Sources/Shapes/Shape.swift", replacing: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else", message: "body")
        try commit("Sources/Shapes/Shape.swift", replacing: "/// Never called by any test.", with: "/// Never called by any test (yet).",
                   message: "comment")
        try commit("Sources/Shapes/Describe.swift", replacing: "", with: "\nextension Rect {\n    public var isSquare: Bool { width == height }\n}\n",
                   message: "structural")
        try commit("README.md", replacing: "", with: "# Shapes\n", message: "readme")
        // A new test (not in any map: it runs, and tests.json still says why).
        try commit("Tests/ShapesTests/SquareTests.swift", replacing: "",
                   with: "import Shapes\nimport XCTest\n\nfinal class SquareTests: XCTestCase {\n"
                       + "    func testSquare() { XCTAssertTrue(Rect(width: 2, height: 2).isSquare) }\n}\n", message: "new test")

        let work = folder.appendingPathComponent("work")
        let script = TestscopeProcess.repoRoot.appendingPathComponent("scripts/replay-affected").path
        let (status, output) = try TestscopeProcess.runLogged(
            ["python3", script, "--repo", repo.path, "--commits", "5", "--mutants", "1", "--testscope", TestscopeProcess.executable.path,
             "--work", work.path], limit: 600, log: folder.appendingPathComponent("replay.log"))
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("Violations: 0."), output)
        XCTAssertTrue(output.contains("Pairs replayed: 5; commits that did not build or run: 0."), output)

        // Each pair's row: `| <commit> | S/T selected (…`; the rows are in commit order, run i's output is out-00i.
        let rows = output.split(separator: "\n").filter { $0.hasPrefix("| ") && $0.contains(" selected (") }
        XCTAssertEqual(rows.count, 5, output)
        var selectedCounts: [Int] = [], totals: [Int] = [], selectedIDs: [Int] = []
        for (index, row) in rows.enumerated() {
            let fraction = try XCTUnwrap(row.split(separator: "|")[1].split(separator: " ").first, String(row))
            let parts = fraction.split(separator: "/").compactMap { Int($0) }
            let data = try Data(contentsOf: work.appendingPathComponent(String(format: "out-%03d/tests.json", index + 1)))
            let tests = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["tests"] as? [[String: Any]])
            let decisions = tests.compactMap { $0["selection"] as? [String: Any] }
            XCTAssertEqual(decisions.count, tests.count, "every test of an observe run has its decision: \(row)")
            let selected = decisions.filter { $0["selected"] as? Bool == true }.count
            XCTAssertEqual(parts, [selected, tests.count], String(row))
            selectedCounts.append(selected)
            selectedIDs.append(Set(tests.filter { ($0["selection"] as? [String: Any])?["selected"] as? Bool == true }.compactMap { $0["id"] as? String }).count)
            totals.append(tests.count)
        }
        // The rules, not numbers: a body edit runs some tests but not all, a comment and a README none, a new
        // declaration or a new test file every test of the target.
        XCTAssertEqual(selectedCounts.count, 5)
        if selectedCounts.count == 5 {
            XCTAssertTrue(selectedCounts[0] > 0 && selectedCounts[0] < totals[0], "\(selectedCounts) of \(totals)")
            XCTAssertEqual(selectedCounts[1], 0)
            XCTAssertEqual(selectedCounts[2], totals[2])
            XCTAssertEqual(selectedCounts[3], 0)
            XCTAssertEqual(selectedCounts[4], totals[4])
        }
        XCTAssertTrue(files.fileExists(atPath: work.appendingPathComponent("replay.md").path))
        // RTSCheck's R3, R5 and R6, from the same runs.
        let fewer = zip(selectedCounts, totals).filter { $0 < $1 }.count
        XCTAssertTrue(output.contains("- R3: \(fewer) of 5 pairs selected fewer than every test"), output)
        XCTAssertTrue(output.contains(" besides the recorded failures") && output.contains("- R5: the same revision again: 0 of "), output)
        XCTAssertTrue(output.contains("- R6: the first run selected every test"), output)

        // scripts/impact-granularity on the same replay: a row per pair whose function column is the tests (ids:
        // a parameterized test's cases together) its observe run selected; a README (pair 4) reaches no test at any granularity, and nothing is missed.
        let (granularityStatus, table) = try TestscopeProcess.runLogged(
            ["python3", TestscopeProcess.repoRoot.appendingPathComponent("scripts/impact-granularity").path, work.path],
            limit: 120, log: folder.appendingPathComponent("granularity.log"))
        XCTAssertEqual(granularityStatus, 0, table)
        let cells = table.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| commit") && !$0.hasPrefix("| ---") }
            .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        XCTAssertEqual(cells.map { Int($0[3]) }, selectedIDs.map { Optional($0) }, table)
        if cells.count == 5 { XCTAssertEqual([cells[3][2], cells[3][4]], ["0", "0"], table) }
        XCTAssertTrue(table.contains("missed tests (outcome changed or failed, not selected): file 0, function 0, line 0."), table)
        XCTAssertTrue(table.contains("RTSCheck R2 and R4 (function granularity against file and line), to inspect: neither holds in any pair."), table)

        // Every test method made to fail by chance, at every commit: their failures are counted by label, and
        // their chance outcomes are no violation. (Each fails half its runs: none failing in 6 runs of every test is 2^-60.)
        let (seededStatus, seeded) = try TestscopeProcess.runLogged(
            ["python3", script, "--repo", repo.path, "--commits", "5", "--seeded-flaky", "1", "--testscope", TestscopeProcess.executable.path,
             "--work", folder.appendingPathComponent("seeded").path], limit: 600, log: folder.appendingPathComponent("seeded.log"))
        XCTAssertEqual(seededStatus, 0, seeded)
        XCTAssertTrue(seeded.contains("Violations: 0."), seeded)
        let line = try XCTUnwrap(seeded.split(separator: "\n").first { $0.hasPrefix("- labels: seeded flaky failures at the pairs' commits: ") }, seeded)
        // `…: 12; labelled not-touched 8, touched 4 (67% not touched)`: the kinds add up to the total.
        let total = Int(line.split(separator: ":").last?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "")
        let kinds = line.components(separatedBy: "labelled ").last?.split(separator: "(").first?.split(separator: ",")
            .compactMap { Int($0.split(separator: " ").last ?? "") } ?? []
        XCTAssertGreaterThan(total ?? 0, 0, String(line))
        XCTAssertEqual(kinds.reduce(0, +), total, String(line))
    }
}
