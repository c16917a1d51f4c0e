import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeTestResults
@testable import TestscopeKit
import XCTest

/// Failure labels from a real change (DeFlaker's rule), in-process on the Selection fixture in its own git
/// repository: a test that fails by chance in code the change does not touch is labelled "not touched" and,
/// run again, reported flaky; a test broken by the change (a mutant in the changed body) is "touched" with
/// the changed line it ran, and is never retried.
final class AffectedLabelTests: XCTestCase {
    static let work = GitFixture.work("testscope-affected-labels")
    static var package: URL { work.appendingPathComponent("Selection") }
    static let chance = ["SelectionTests.ChanceTests/testPassesOnSecondAttempt", "SelectionTests.ChanceSuite/passesOnSecondAttempt()"]
    static let greets = "SelectionTests.GreetingSuite/greets()"

    let console = CapturedConsole()
    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    override func tearDown() { unsetenv("SELECTION_CHANCE_DIR") }

    func request(_ output: String, affected: AffectedOptions?) -> RunRequest {
        var settings = ReportSettings(formats: [.json], output: Self.work.appendingPathComponent(output))
        settings.history = Self.work.appendingPathComponent("history.sqlite")
        var request = RunRequest(packageRoot: Self.package, settings: settings)
        request.perTestCoverage = true
        request.affected = affected
        request.selection.scratchPath = Self.work.appendingPathComponent("build")
        return request
    }

    func testChanceFailuresAreNotTouchedAndFlakyAndTheChangesFailuresAreTouched() throws {
        let fm = FileManager.default
        try? fm.removeItem(at: Self.work.appendingPathComponent("history.sqlite"))
        _ = try GitFixture("Selection", in: Self.work, ignoreBuild: false)
        unsetenv("SELECTION_CHANCE_DIR")
        XCTAssertEqual(try pipeline.run(request("record", affected: nil)).status, .success, console.diagnosticsText)

        // The change edits greet's body; the chance tests never call greet, and fail by chance on their first attempt.
        let source = Self.package.appendingPathComponent("Sources/Selection/Selection.swift")
        let text = try String(contentsOf: source, encoding: .utf8)
        try text.replacingOccurrences(of: "let text = \"Hello, \\(name)!\"", with: "let text = \"Hello, \" + \"\\(name)!\"")
            .write(to: source, atomically: true, encoding: .utf8)
        // One run where they fail (no retry), for the history's evidence; then the run that retries them.
        for retry in [false, true] {
            let markers = Self.work.appendingPathComponent("markers-\(UUID().uuidString)")
            try fm.createDirectory(at: markers, withIntermediateDirectories: true)
            setenv("SELECTION_CHANCE_DIR", markers.path, 1)
            if !retry { XCTAssertEqual(try pipeline.run(request("failing", affected: AffectedOptions(observe: true))).status, .testsFailed) }
        }
        var observe = request("observe", affected: AffectedOptions(observe: true))
        observe.retryUntouched = 1
        let observed = try pipeline.run(observe)
        XCTAssertEqual(observed.status, .success, console.diagnosticsText)
        let tests = try XCTUnwrap(observed.tests)
        for id in Self.chance {
            XCTAssertEqual(tests.failureLabels[id], .notTouched, id)
            XCTAssertTrue(tests.flaky.contains { $0.id == id }, "\(id) passed on its retry: flaky")
            // The history's evidence: the earlier run on the same commit where it failed, beside the record where it passed.
            XCTAssertEqual(tests.flakyEvidence[id], "passed and failed on the same code 1 time in 2 earlier runs", id)
        }

        // A mutant in the changed body breaks greets: touched, with the changed line it ran; not retried.
        try text.replacingOccurrences(of: "let text = \"Hello, \\(name)!\"", with: "let text = \"Hallo, \\(name)!\"")
            .write(to: source, atomically: true, encoding: .utf8)
        var mutant = request("mutant", affected: AffectedOptions())
        mutant.retryUntouched = 1
        let broken = try XCTUnwrap(try pipeline.run(mutant).tests)
        XCTAssertEqual(broken.results.first { $0.id == Self.greets }?.outcome, .failed)
        XCTAssertEqual(broken.failureLabels[Self.greets], .touched("Sources/Selection/Selection.swift:10"))
        XCTAssertNil(broken.otherAttempts[Self.greets], "a touched failure is not retried")
    }
}
