import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults
@testable import TestscopeKit
import XCTest

/// `run --affected` as a user runs it, in-process on a copy of the Shapes fixture in its own git
/// repository: a recording run, then an uncommitted edit of one function body. The source of truth
/// for which tests the edit reaches is the recording run's own per-test coverage (per-test.json).
final class AffectedRunTests: XCTestCase {
    static let shapes = GitFixture.packages.appendingPathComponent("Shapes")
    /// Kept between runs: the build folder (the sources and the history are made fresh each time).
    static let work = GitFixture.work("testscope-affected-shapes")
    static var package: URL { work.appendingPathComponent("Shapes") }
    static var history: URL { work.appendingPathComponent("history.sqlite") }

    let console = CapturedConsole()
    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    func request(_ output: String, affected: AffectedOptions? = nil) -> RunRequest {
        var settings = ReportSettings(formats: [.json, .junit], output: Self.work.appendingPathComponent(output))
        settings.history = Self.history
        var request = RunRequest(packageRoot: Self.package, settings: settings)
        request.perTestCoverage = affected == nil
        request.affected = affected
        request.selection.scratchPath = Self.work.appendingPathComponent("build")
        return request
    }

    func testsJSON(_ output: String) throws -> [String: Any] {
        let data = try Data(contentsOf: Self.work.appendingPathComponent(output).appendingPathComponent("tests.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The package in a fresh repository without a .gitignore (its own .build must not count as a change).
    func makeRepository() throws {
        try? FileManager.default.removeItem(at: Self.history)
        _ = try GitFixture("Shapes", in: Self.work, ignoreBuild: false)
    }

    func testAffectedRunsWhatTheEditReachesAndSaysWhy() throws {
        try makeRepository()
        // No history yet: every test runs, with one note, and the run records the first map.
        let first = try pipeline.run(request("first", affected: AffectedOptions()))
        XCTAssertEqual(first.status, .success, console.diagnosticsText)
        XCTAssertTrue(console.diagnosticsText.contains("--affected: every test runs: no history at"), console.diagnosticsText)
        let all = try XCTUnwrap(first.tests).results.map(\.id)

        // A recording run, then an uncommitted edit of validated's body (Shape.swift 37-41).
        XCTAssertEqual(try pipeline.run(request("record")).status, .success, console.diagnosticsText)
        let perTest = try JSONDecoder().decode(PerTestCoverage.self, from: Data(contentsOf: Self.work.appendingPathComponent("record/per-test.json")))
        let file = try XCTUnwrap(perTest.file(matching: "Sources/Shapes/Shape.swift"))
        let truth = Set((37...41).flatMap { perTest.tests(running: UInt32($0), in: file) })
        let others = Set(all).subtracting(truth)
        XCTAssertFalse(truth.isEmpty)
        XCTAssertFalse(others.isEmpty)
        let source = Self.package.appendingPathComponent("Sources/Shapes/Shape.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        try text.replacingOccurrences(of: "guard rect.width >= 0 else", with: "guard rect.width >= 0.0 else")
            .write(to: source, atomically: true, encoding: .utf8)

        // --why answers and runs nothing (no output folder is made).
        let selected = try XCTUnwrap(truth.sorted().first), skipped = try XCTUnwrap(others.sorted().first)
        let why = try pipeline.run(request("why", affected: AffectedOptions(why: [selected, skipped])))
        XCTAssertNil(why.tests)
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.work.appendingPathComponent("why").path))
        XCTAssertTrue(console.outputText.contains("\(selected): runs — executed validated(_:) -> Rect, whose body changed (Sources/Shapes/Shape.swift:38)"),
                      console.outputText)
        XCTAssertTrue(console.outputText.contains("\(skipped): skipped — not affected by the change"), console.outputText)

        // --observe runs everything and says what would have been skipped, and that none of it failed.
        let observed = try pipeline.run(request("observe", affected: AffectedOptions(observe: true)))
        XCTAssertEqual(Set(try XCTUnwrap(observed.tests).results.filter { $0.outcome == .passed }.map(\.id)), Set(all))
        let observe = try XCTUnwrap(try testsJSON("observe")["observe"] as? [String: Any])
        XCTAssertEqual(observe["wouldSkip"] as? Int, others.count)
        XCTAssertEqual(observe["failedAmongSkipped"] as? [String], [])
        XCTAssertTrue(console.diagnosticsText.contains("would skip \(others.count) of"), console.diagnosticsText)

        // Against the map --observe recorded (the edit in place), taking the edit back is the change: the selective
        // run runs exactly the truth; the others are skipped with the reason, in tests.json and JUnit.
        try text.write(to: source, atomically: true, encoding: .utf8)
        let run = try pipeline.run(request("affected", affected: AffectedOptions()))
        XCTAssertEqual(run.status, .success, console.diagnosticsText)
        let results = try XCTUnwrap(run.tests).results
        XCTAssertEqual(Set(results.filter { $0.outcome != .skipped }.map(\.id)), truth)
        XCTAssertEqual(Set(results.filter { $0.outcome == .skipped }.map(\.id)), others)
        let json = try testsJSON("affected")
        let tests = try XCTUnwrap(json["tests"] as? [[String: Any]])
        for test in tests {
            let id = try XCTUnwrap(test["id"] as? String)
            let selection = try XCTUnwrap(test["selection"] as? [String: Any], id)
            XCTAssertEqual(selection["selected"] as? Bool, truth.contains(id), id)
            if !truth.contains(id) { XCTAssertEqual(test["skipReason"] as? String, "not affected by the change") }
        }
        // Its coverage is the full suite's: the skipped tests' recorded lines carried forward (the observe run
        // before it ran every test on the same text).
        func coverage(_ output: String) throws -> [String: Any] {
            let data = try Data(contentsOf: Self.work.appendingPathComponent(output).appendingPathComponent("coverage.json"))
            return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let carried = try XCTUnwrap(try coverage("affected")["carriedForward"] as? [String: Any])
        XCTAssertEqual(carried["skippedTests"] as? Int, others.count)
        func lines(_ json: [String: Any]) -> String { "\(((json["totals"] as? [String: Any])?["lines"] as? [String: Any])?["covered"] ?? "none")" }
        XCTAssertEqual(lines(try coverage("affected")), lines(try coverage("observe")))
        let junit = try String(contentsOf: Self.work.appendingPathComponent("affected/junit.xml"), encoding: .utf8)
        XCTAssertEqual(junit.components(separatedBy: "<skipped message=\"not affected by the change\"").count - 1, others.count)

        // A selective run records no map (it would hold only what ran): the next selection diffs from --observe's
        // full run again, so the same change selects the same tests.
        _ = try pipeline.run(request("why-again", affected: AffectedOptions(why: [selected, skipped])))
        XCTAssertEqual(console.outputText.components(separatedBy: "\(selected): runs — executed validated(_:) -> Rect, whose body changed").count, 3,
                       console.outputText)
        XCTAssertEqual(console.outputText.components(separatedBy: "\(skipped): skipped — not affected by the change").count, 3, console.outputText)

        // A file outside every target is a full run, unless the user's --ignore-change glob matches it.
        let script = Self.package.appendingPathComponent("Scripts/format.sh")
        try FileManager.default.createDirectory(at: script.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "swift format -i -r .\n".write(to: script, atomically: true, encoding: .utf8)
        _ = try pipeline.run(request("why-script", affected: AffectedOptions(why: [skipped])))
        XCTAssertTrue(console.outputText.contains("\(skipped): runs — full run: Scripts/format.sh is outside every target"), console.outputText)
        _ = try pipeline.run(request("why-ignored", affected: AffectedOptions(why: [skipped], ignoreChanges: ["Scripts/**"])))
        XCTAssertEqual(console.outputText.components(separatedBy: "\(skipped): skipped — not affected by the change").count, 4, console.outputText)
        var bad = request("bad", affected: AffectedOptions(ignoreChanges: ["../Elsewhere/**"]))
        bad.affected?.why = [skipped]
        XCTAssertThrowsError(try bad.validate()) {
            XCTAssertTrue(($0 as? UsageError)?.message.contains("--ignore-change '../Elsewhere/**' must be a glob relative") == true, "\($0)")
        }

        // A REF git does not know is a usage error (exit 64), before anything is built.
        XCTAssertThrowsError(try pipeline.run(request("since", affected: AffectedOptions(since: "no-such-ref")))) { error in
            XCTAssertTrue(error is UsageError, "\(error)")
            XCTAssertTrue((error as? UsageError)?.message.contains("--since no-such-ref") == true, "\(error)")
        }
    }

    func testAffectedNeedsAHistory() {
        var request = RunRequest(packageRoot: Self.shapes)
        request.affected = AffectedOptions()
        XCTAssertThrowsError(try request.validate()) { XCTAssertTrue("\($0)".contains("--affected needs --history"), "\($0)") }
    }
}
