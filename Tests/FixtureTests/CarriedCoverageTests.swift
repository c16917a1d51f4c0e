import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeImpact
import TestscopeReports
import TestscopeTestResults
@testable import TestscopeKit
import XCTest

/// A selective run's coverage is the full suite's: a copy of the Shapes fixture in its own git repository is
/// recorded with `--per-test-coverage --history` at P, changed at C, run with the selection and the skipped
/// tests' carried-forward coverage, and run in full at C: the two `coverage.json` files cover the same lines,
/// file by file, with the same functions, regions and instantiations (all numbers from the real runs).
final class CarriedCoverageTests: XCTestCase {
    static let shapes = ImpactSelectionTests.shapes
    /// Kept between runs: the copy's build folder (the sources are copied fresh each time).
    static let work = GitFixture.work("testscope-carry-shapes")
    static let package = work.appendingPathComponent("Shapes")
    static let scratch = work.appendingPathComponent("build")
    static let history = work.appendingPathComponent("history.sqlite")

    let console = CapturedConsole()
    /// The tests the recording run listed.
    var listed: [String] = []
    /// The recorded commit P (the diff coverage's base).
    var base = ""
    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    var repository: GitFixture!

    /// A body edit: the tests that did not run `validated` are skipped, their lines carried unmoved.
    func testSelectiveRunWithCarriedCoverageCoversTheFullRunsLines() throws {
        try record()
        try edit { $0.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else") }
        try repository.git("commit", "-q", "-am", "edit validated's body")
        try compareSelectiveWithFull()
    }

    /// Lines inserted at the top of the file (uncommitted) and the same body edit: every line a skipped test
    /// ran in Shape.swift is now 3 lines further down, and is found there.
    func testCarriedLinesMoveWithTheirTokens() throws {
        try record()
        try edit {
            $0.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else")
                .replacingOccurrences(of: "/// Something with an area.\n", with: "// Three lines more\n// above everything\n\n/// Something with an area.\n")
        }
        let (selective, _) = try compareSelectiveWithFull()
        // The moved lines are there: `Rect.area` (line 15, now 18) ran only in skipped tests.
        let shape = try XCTUnwrap(selective.covered["Sources/Shapes/Shape.swift"])
        XCTAssertTrue(shape.contains(18), "\(shape.sorted())")
    }

    /// A comment edit alone skips every test: the report is still the full suite's, all of it carried
    /// forward onto the binary's mapping (no test ran, no profile).
    func testRunSkippingEveryTestCarriesTheWholeCoverage() throws {
        try record()
        try edit { $0.replacingOccurrences(of: "/// Something with an area.\n", with: "/// Something with an area (a comment edit).\n") }
        let (selective, _) = try compareSelectiveWithFull(someRun: false)
        XCTAssertFalse(console.outputText.contains("so there is no coverage"), console.outputText)
        XCTAssertFalse(selective.covered.values.allSatisfy(\.isEmpty))
    }

    /// The carried part is kept with the run (`.testscope-run.json`): `report --from` renders the selective run
    /// again with it, and the shards of a selective run merge into the full suite's coverage (carried once).
    func testReportAgainAndMergedShardsKeepTheCarriedCoverage() throws {
        try record()
        try edit { $0.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else") }
        let (selective, full) = try compareSelectiveWithFull()
        var again = ReportRequest(packageRoot: Self.package, settings: ReportSettings(formats: [.json], output: Self.work.appendingPathComponent("again")))
        again.from = Self.work.appendingPathComponent("selective")
        XCTAssertEqual(try pipeline.report(again).status, .success, console.diagnosticsText)
        let reported = try Coverage(Self.work.appendingPathComponent("again/coverage.json"))
        XCTAssertEqual(reported.covered, full.covered)
        XCTAssertEqual(reported.totals, full.totals)
        XCTAssertEqual(reported.carried?["lines"] as? Int, selective.carried?["lines"] as? Int)

        let selection = try pipeline.selectAffected(
            packageRoot: Self.package, history: Self.history, since: nil, tests: listed, alwaysRun: [],
            toolchain: try TestscopeExecution.Toolchain.locate(), configuration: nil, buildArguments: [], scratchPath: Self.scratch)
        let skipped = selection.decisions.filter { !$0.run }
        var shards: [URL] = []
        for index in 1...2 {
            var request = request("shard-\(index)", formats: [.json])
            request.testSelection = TestSelection(skipped: Dictionary(skipped.map { ($0.test, TestSelection.Skip(reason: $0.reason)) }, uniquingKeysWith: { first, _ in first }))
            request.carryForward = try selection.carriedCoverage(history: Self.history, busyTimeout: 5)
            request.shard = TestShard(index: index, count: 2)
            XCTAssertEqual(try pipeline.run(request).status, .success, console.diagnosticsText)
            shards.append(Self.work.appendingPathComponent("shard-\(index)"))
        }
        let merge = MergeRequest(packageRoot: Self.package, shards: shards, settings: ReportSettings(formats: [.json], output: Self.work.appendingPathComponent("merged")))
        XCTAssertEqual(try pipeline.merge(merge).status, .success, console.diagnosticsText)
        let merged = try Coverage(Self.work.appendingPathComponent("merged/coverage.json"))
        XCTAssertEqual(merged.covered, full.covered)
        XCTAssertEqual(merged.totals, full.totals)
        XCTAssertNotNil(merged.carried)
    }

    // MARK: - Helpers

    /// A fresh copy at P, recorded with per-test coverage into a fresh history.
    func record() throws {
        try? FileManager.default.removeItem(at: Self.history)
        repository = try GitFixture("Shapes", in: Self.work, ignoreBuild: true)
        var request = request("recorded", formats: [.json])
        request.settings.history = Self.history
        request.perTestCoverage = true
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        XCTAssertNotNil(outcome.impactMap)
        base = try XCTUnwrap(try GitRepository.containing(Self.package, environment: ProcessInfo.processInfo.environment).head())
        // A parameterized test's cases share its id.
        listed = Array(Set(try XCTUnwrap(outcome.tests).results.map(\.id))).sorted()
    }

    func edit(_ change: (String) -> String) throws {
        let source = Self.package.appendingPathComponent("Sources/Shapes/Shape.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        let changed = change(text)
        XCTAssertNotEqual(changed, text)
        try changed.write(to: source, atomically: true, encoding: .utf8)
    }

    /// The selection at C run with carried coverage, and the full suite at C: equal covered lines per file and totals.
    @discardableResult
    func compareSelectiveWithFull(someRun: Bool = true) throws -> (selective: Coverage, full: Coverage) {
        let selection = try pipeline.selectAffected(
            packageRoot: Self.package, history: Self.history, since: nil, tests: listed, alwaysRun: [],
            toolchain: try TestscopeExecution.Toolchain.locate(), configuration: nil, buildArguments: [], scratchPath: Self.scratch)
        XCTAssertNil(selection.fullRunReason)
        let skipped = selection.decisions.filter { !$0.run }
        XCTAssertFalse(skipped.isEmpty, "some tests are skipped")
        XCTAssertEqual(selection.decisions.contains(where: \.run), someRun, "some tests run")
        var request = request("selective", formats: [.json, .lcov, .markdown, .html], diffBase: base)
        request.testSelection = TestSelection(skipped: Dictionary(skipped.map { ($0.test, TestSelection.Skip(reason: $0.reason)) }, uniquingKeysWith: { first, _ in first }))
        request.carryForward = try selection.carriedCoverage(history: Self.history, busyTimeout: 5)
        XCTAssertNotNil(request.carryForward)
        XCTAssertEqual(try pipeline.run(request).status, .success, console.diagnosticsText)
        XCTAssertEqual(try pipeline.run(self.request("full", formats: [.json, .lcov], diffBase: base)).status, .success, console.diagnosticsText)

        let selective = try Coverage(Self.work.appendingPathComponent("selective/coverage.json"))
        let full = try Coverage(Self.work.appendingPathComponent("full/coverage.json"))
        XCTAssertEqual(Set(selective.covered.keys), Set(full.covered.keys))
        for (path, lines) in full.covered {
            XCTAssertEqual(selective.covered[path]?.sorted(), lines.sorted(), path)
        }
        XCTAssertEqual(selective.totals, full.totals, "lines, functions, regions, instantiations")
        XCTAssertEqual(selective.summaries, full.summaries, "each file's four metrics")
        XCTAssertEqual(selective.diff, full.diff, "diff coverage of the change since P")
        XCTAssertNotNil(selective.diff)
        // LCOV: each file's found and hit lines, functions and branches.
        func tallies(_ name: String) throws -> [String] {
            try String(contentsOf: Self.work.appendingPathComponent("\(name)/coverage.lcov"), encoding: .utf8).split(separator: "\n")
                .filter { line in ["SF:", "LF:", "LH:", "FNF:", "FNH:", "BRF:", "BRH:"].contains { line.hasPrefix($0) } }.map(String.init)
        }
        XCTAssertEqual(try tallies("selective"), try tallies("full"))
        // Said in coverage.json, the terminal and the Markdown summary; a full run says nothing of it.
        let carried = try XCTUnwrap(selective.carried)
        XCTAssertGreaterThan(try XCTUnwrap(carried["lines"] as? Int), 0)
        XCTAssertEqual(carried["skippedTests"] as? Int, Set(skipped.map(\.test)).count)
        XCTAssertNil(full.carried)
        XCTAssertTrue(console.outputText.contains("coverage: \(carried["lines"] as? Int ?? -1) line(s) carried forward from the run of "),
                      console.outputText)
        let summary = try String(contentsOf: Self.work.appendingPathComponent("selective/summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("\(carried["lines"] as? Int ?? -1) line(s) carried forward from the run of "), summary)
        let index = try String(contentsOf: Self.work.appendingPathComponent("selective/index.html"), encoding: .utf8)
        let skippedCount = Set(skipped.map(\.test)).count
        XCTAssertTrue(index.contains("<p class=\"notice carried\">Carried forward: \(carried["lines"] as? Int ?? -1) line"), index)
        XCTAssertTrue(index.contains("covered only by the \(skippedCount) test"), index)
        return (selective, full)
    }

    func request(_ name: String, formats: [ReportFormat], diffBase: String? = nil) -> RunRequest {
        var request = RunRequest(packageRoot: Self.package, settings: ReportSettings(formats: formats, output: Self.work.appendingPathComponent(name)))
        request.settings.pullRequest.diffBase = diffBase
        request.settings.pullRequest.includeUncommitted = true
        request.selection.scratchPath = Self.scratch
        return request
    }

    /// What coverage.json says: each file's covered lines, the totals' lines, the carried part.
    struct Coverage {
        var covered: [String: Set<Int>] = [:]
        /// The totals and each file's summary, as text (`{"lines": {"covered": …}, …}`).
        var totals: String
        var summaries: [String: String] = [:]
        var carried: [String: Any]?
        var diff: String?

        init(_ url: URL) throws {
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            for file in try XCTUnwrap(json["files"] as? [[String: Any]]) {
                let lines = try XCTUnwrap(file["lines"] as? [[String: Any]])
                let path = try XCTUnwrap(file["path"] as? String)
                covered[path] = Set(lines.filter { ($0["count"] as? Int ?? 0) > 0 }.compactMap { $0["line"] as? Int })
                summaries[path] = try Self.text(file["summary"])
            }
            let totals = try XCTUnwrap(json["totals"] as? [String: Any])
            self.totals = try Self.text(totals)
            carried = json["carriedForward"] as? [String: Any]
            diff = try json["diff"].map { try Self.text($0) }
        }

        static func text(_ value: Any?) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: try XCTUnwrap(value), options: [.sortedKeys]), as: UTF8.self)
        }
    }
}
