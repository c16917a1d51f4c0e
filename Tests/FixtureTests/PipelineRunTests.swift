import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeFlakiness
import TestscopeKit
import TestscopeReports
import XCTest

/// `run` and `flaky` in-process through the library on real builds of the fixture packages: requests
/// in, outcomes out, the console captured (`report` on the recorded samples: TestscopeKitTests' PipelineTests).
final class PipelineRunTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-profiles")

    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    func recorded(_ sample: String, _ file: String) -> URL { Self.samples.appendingPathComponent("recorded/\(sample)/\(file)") }
    func package(_ name: String) -> URL { Self.samples.appendingPathComponent("packages/\(name)") }

    /// A real `run` of the Shapes fixture in-process: every listed test ran, and the model (native
    /// engine) equals the one `report` builds from the llvm-cov export of the same profiles.
    func testRunInProcessAgreesWithAReportOfItsOwnExport() throws {
        var settings = ReportSettings(output: output)
        settings.keepLLVMArtifacts = true  // the native engine's report, and llvm-cov's export of the same profiles
        var request = RunRequest(packageRoot: package("Shapes"), settings: settings)
        request.selection.scratchPath = package("Shapes").appendingPathComponent(".build-kit-tests")
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        let tests = try XCTUnwrap(outcome.tests)
        let listed = Set(try String(contentsOf: recorded("Shapes", "test-list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty })
        XCTAssertEqual(Set(tests.results.map(\.id)).intersection(listed), listed)
        XCTAssertFalse(tests.hasFailures)

        let again = output.appendingPathComponent("again")
        var report = ReportRequest(packageRoot: package("Shapes"), settings: ReportSettings(formats: [.json], output: again))
        report.exports = [output.appendingPathComponent("llvm-cov-export.json")]
        let reported = try XCTUnwrap(try pipeline.report(report).coverage)
        let ran = try XCTUnwrap(outcome.coverage)
        XCTAssertEqual(ran.totals, reported.totals)
        XCTAssertEqual(ran.files.map(\.relativePath), reported.files.map(\.relativePath))
        XCTAssertEqual(ran.files.map(\.summary), reported.files.map(\.summary))
        XCTAssertEqual(ran.files.map(\.missingRanges), reported.files.map(\.missingRanges))
        XCTAssertGreaterThan(ran.totals.lines.covered, 0)
    }

    /// `flaky` in-process: an order with the planted polluter first makes its victim fail, every time.
    func testFlakyReplaysAnOrderInProcess() throws {
        let victim = "FlakyTests.CacheTests/testA_lookupStartsEmpty", polluter = "FlakyTests.CacheTests/testB_storeKeepsValue"
        var request = FlakyRequest(packageRoot: package("Flaky"), settings: ReportSettings(output: output))
        request.mode = .order([polluter, victim], repeat: 2)
        let failing = try pipeline.flaky(request)
        XCTAssertEqual(failing.status, .testsFailed)
        XCTAssertTrue(console.outputText.contains("2. \(victim): failed 2 of 2"), console.outputText)

        request.mode = .order([victim, polluter], repeat: 1)
        XCTAssertEqual(try pipeline.flaky(request).status, .success, console.outputText)
    }

    /// `flaky` detection in-process: three seeded orders of the fixture's CacheTests find the planted
    /// victim with its polluter and its cleaner (as `testscope flaky --filter CacheTests --seed 1 --runs 3`).
    func testFlakyDetectsThePlantedVictimInProcess() throws {
        let victim = "FlakyTests.CacheTests/testA_lookupStartsEmpty"
        var request = FlakyRequest(packageRoot: package("Flaky"), settings: ReportSettings(formats: [.json], output: output))
        request.selection.filters = ["CacheTests"]
        (request.seed, request.runs, request.jobs) = (1, 3, 2)
        let outcome = try pipeline.flaky(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        let findings = try XCTUnwrap(outcome.flaky?.findings)
        XCTAssertEqual(findings.filter(\.classification.isFlaky).map(\.id), [victim])
        let finding = try XCTUnwrap(findings.first { $0.id == victim })
        XCTAssertEqual(finding.classification, .odVictim)
        XCTAssertEqual(finding.polluterGroups, [["FlakyTests.CacheTests/testB_storeKeepsValue"]])
        XCTAssertEqual(finding.cleaners, ["FlakyTests.CacheTests/testC_clearEmptiesCache"])
        XCTAssertEqual(finding.failingOrder, ["FlakyTests.CacheTests/testB_storeKeepsValue", victim])
        XCTAssertTrue(console.diagnosticsText.contains("testscope: warning: 1 flaky test(s): \(victim) (od-victim)"),
                      console.diagnosticsText)
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("flaky.json").path))
    }
}
