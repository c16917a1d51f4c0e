import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeHistory
import TestscopeImpact
import TestscopeTestResults
@testable import TestscopeKit
import XCTest

/// Test impact analysis on a real run: a copy of the Shapes fixture in its own git repository, run with
/// `--per-test-coverage --history`; then one function body is edited and committed, and the selection
/// must pick exactly the tests that the run's own per-test coverage says executed that function.
final class ImpactSelectionTests: XCTestCase {
    static let shapes = GitFixture.packages.appendingPathComponent("Shapes")
    /// Kept between runs: the copy's build folder (the sources are copied fresh each time).
    static let work = GitFixture.work("testscope-impact-shapes")

    let console = CapturedConsole()
    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    func testABodyEditSelectsExactlyTheTestsThatRanTheFunction() throws {
        let fm = FileManager.default
        let repo = try GitFixture("Shapes", in: Self.work, ignoreBuild: true)
        let package = repo.package
        let output = Self.work.appendingPathComponent("out"), history = Self.work.appendingPathComponent("history.sqlite")
        try? fm.removeItem(at: output)
        try? fm.removeItem(at: history)
        var settings = ReportSettings(formats: [.json], output: output)
        settings.history = history
        var request = RunRequest(packageRoot: package, settings: settings)
        request.perTestCoverage = true
        request.selection.scratchPath = Self.work.appendingPathComponent("build")
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)

        let repository = try GitRepository.containing(package, environment: ProcessInfo.processInfo.environment)
        let base = try XCTUnwrap(try repository.head())
        let lookup = try HistoryImpactStore(url: history).newestMap(
            ancestors: [base], environment: try XCTUnwrap(outcome.impactMap?.environment))
        guard case let .found(map) = lookup else { return XCTFail("\(lookup)") }
        XCTAssertEqual(map, outcome.impactMap)
        let perTestURL = output.appendingPathComponent("per-test.json")
        let perTest = try JSONDecoder().decode(PerTestCoverage.self, from: Data(contentsOf: perTestURL))
        let mapSize = try map.encoded().count, perTestSize = try Data(contentsOf: perTestURL).count
        XCTAssertLessThanOrEqual(mapSize, 2 * perTestSize, "the map is at most twice per-test.json")

        // Ground truth: the tests whose per-test lines include `validated`'s body (Shape.swift 37-41).
        let file = try XCTUnwrap(perTest.file(matching: "Sources/Shapes/Shape.swift"))
        let truth = Set((37...41).flatMap { perTest.tests(running: UInt32($0), in: file) })
        XCTAssertFalse(truth.isEmpty)
        XCTAssertLessThan(truth.count, Set(map.tests.map(\.id)).count, "some tests did not run it")
        // The map agrees function by function with the lines: every test that entered `validated` ran its lines.
        let validated = try XCTUnwrap(map.functions.firstIndex { $0.name.contains("9validated") })
        XCTAssertEqual(Set(map.tests.filter { $0.functionIndexes.contains(validated) }.map(\.id)), truth)

        let source = package.appendingPathComponent("Sources/Shapes/Shape.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        try text.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else")
            .write(to: source, atomically: true, encoding: .utf8)
        try repo.git("commit", "-q", "-am", "edit validated's body")

        let layout = PackageLayout.discover(root: package, swift: TestscopeExecution.Toolchain.findInPath("swift", environment: ProcessInfo.processInfo.environment),
                                            scratchPath: request.selection.scratchPath, dependencies: true)
        let changes = try repository.fileChanges(since: map, packageRoot: package)
        XCTAssertEqual(changes.map(\.path), ["Sources/Shapes/Shape.swift"])
        let impact = ChangeAnalyzer(map: map, layout: layout).analyze(changes)
        XCTAssertEqual(impact.functions.keys.sorted(), [validated])
        let decisions = SelectionRules(map: map, impact: impact, layout: layout).decide(map.tests.map(\.id))
        XCTAssertEqual(Set(decisions.filter(\.run).map(\.test)), truth)
        for decision in decisions where decision.run {
            XCTAssertTrue(decision.reason.hasPrefix("executed $s6Shapes9validated"), decision.reason)
            XCTAssertTrue(decision.reason.hasSuffix("(Sources/Shapes/Shape.swift:38)"), decision.reason)
        }

        // The same through the Kit's selection (git, the history, the layout, demangled names), as `run --affected` calls it.
        let affected = try pipeline.selectAffected(
            packageRoot: package, history: history, since: nil, tests: map.tests.map(\.id), alwaysRun: [],
            toolchain: try TestscopeExecution.Toolchain.locate(), configuration: nil, buildArguments: [], scratchPath: request.selection.scratchPath)
        XCTAssertNil(affected.fullRunReason)
        XCTAssertEqual(affected.decisions.filter(\.run).map(\.test), decisions.filter(\.run).map(\.test))
        for decision in affected.decisions where decision.run {
            XCTAssertEqual(decision.reason, "executed validated(_:) -> Rect, whose body changed (Sources/Shapes/Shape.swift:38)")
        }
        XCTAssertGreaterThanOrEqual(affected.savedSeconds, 0)
        // Failure labels from this (the recording) run's per-test coverage: the edited line 38 ran in the selected tests only.
        for decision in affected.decisions {
            let label = affected.label(decision.test, coverage: perTest)
            XCTAssertEqual(label, decision.run ? .touched("Sources/Shapes/Shape.swift:38") : .notTouched, decision.test)
        }

        // A comment in the same body reaches no test.
        try (text.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0 /* non-negative */ else"))
            .write(to: source, atomically: true, encoding: .utf8)
        let commented = ChangeAnalyzer(map: map, layout: layout).analyze(try repository.fileChanges(since: map, packageRoot: package))
        XCTAssertTrue(commented.isEmpty)
        XCTAssertEqual(SelectionRules(map: map, impact: commented, layout: layout).decide(map.tests.map(\.id)).filter(\.run), [])
    }
}
