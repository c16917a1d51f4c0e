import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeReports
import TestscopeTestSupport
import XCTest

/// `report --format cobertura,sonarqube,markdown` in-process on the recorded Inventory sample: the
/// files are the model rendered, the default formats are left out, and on GitHub Actions the step
/// summary is the same Markdown (one renderer); without test results, only the coverage files, which
/// xmllint accepts (coverage-04 DTD, SonarQube's schema).
final class CIFormatsPipelineTests: XCTestCase {
    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-ci-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func recorded(_ file: String) -> URL { PipelineTests.samples.appendingPathComponent("recorded/Inventory/\(file)") }

    func testCIFormatsAndTheStepSummary() throws {
        let stepSummary = output.appendingPathExtension("step-summary.md")
        try "earlier step\n".write(to: stepSummary, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: stepSummary) }
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "",
                                              "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary.path])
        var settings = ReportSettings(formats: [.cobertura, .sonarqube, .markdown], output: output)
        settings.gate = CoverageGate(lines: 100)
        let root = PipelineTests.samples.appendingPathComponent("packages/Inventory")
        // The recording's absolute paths, mapped onto this checkout.
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded("meta.json"))) as? [String: Any]
        settings.pathEquivalences = [PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: root.path)]
        var request = ReportRequest(packageRoot: root, settings: settings)
        request.exports = [recorded("coverage.json")]
        request.testLogs = [recorded("swift-test.log")]
        request.eventStreams = [recorded("swift-testing-events.jsonl")]
        request.testList = recorded("test-list.txt")
        let outcome = try pipeline.report(request)

        let names = outcome.written.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(Set(names), ["cobertura.xml", "sonarqube-coverage.xml", "sonarqube-tests.xml", "summary.md"])
        let coverage = try XCTUnwrap(outcome.coverage)
        XCTAssertFalse(coverage.files.isEmpty)
        let tests = try XCTUnwrap(outcome.tests)
        XCTAssertTrue(tests.hasFailures, "Inventory has failing tests")
        // The whole model of the same export, as the pipeline built it.
        let options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
                                           pathEquivalences: settings.pathEquivalences, demangler: SwiftDemangler(library: try Toolchain.locate().demangler))
        var model = try CoverageBuilder(options: options).build(exports: [recorded("coverage.json")])
        model.report = coverage
        let repositoryRoot = RepositoryRoot.find(from: root).path
        func written(_ name: String) throws -> String { try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8) }
        XCTAssertEqual(try written("cobertura.xml"),
                       try CoberturaReport(sourceRoot: repositoryRoot, generatorVersion: TestscopeVersion.current).renderString(model))
        XCTAssertEqual(try written("sonarqube-coverage.xml"), try SonarQubeCoverageReport(sourceRoot: repositoryRoot).renderString(model))
        XCTAssertEqual(model.files.map(\.summarized), coverage.files)
        XCTAssertFalse(console.diagnosticsText.contains("left out of sonarqube-tests.xml"), console.diagnosticsText)

        let summary = try written("summary.md")
        XCTAssertEqual(summary, try MarkdownSummary(packageRoot: root.path).renderString(
            SummaryContent(coverage: coverage, tests: tests, gateFailures: console.diagnosticsText.split(separator: "\n")
                .filter { $0.hasPrefix("testscope: coverage gate failed") }.map { String($0.dropFirst("testscope: ".count)) })))
        XCTAssertTrue(summary.contains("**Coverage gate failed:**"), summary)
        XCTAssertTrue(summary.contains("**Tests:** \(tests.summaryLine)"), summary)
        // Appended after the earlier step's text, the same renderer (the summary is under both limits).
        XCTAssertEqual(try String(contentsOf: stepSummary, encoding: .utf8), "earlier step\n" + summary)
        XCTAssertEqual(outcome.status, .testsFailed)
    }

    /// Coverage only (no test results): the three files and only them, accepted by xmllint, the note naming
    /// the summary, and the terminal's totals line and the summary's line row the same numbers.
    func testReportWritesTheCIFormatsTheToolsAccept() throws {
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        var settings = ReportSettings(formats: [.cobertura, .sonarqube, .markdown], output: output)
        let root = PipelineTests.samples.appendingPathComponent("packages/Inventory")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded("meta.json"))) as? [String: Any]
        settings.pathEquivalences = [PathEquivalence(from: try XCTUnwrap(meta?["packageRoot"] as? String), to: root.path)]
        var request = ReportRequest(packageRoot: root, settings: settings)
        request.exports = [recorded("coverage.json")]
        let outcome = try pipeline.report(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: output.path)),
                       [".gitignore", "cobertura.xml", "sonarqube-coverage.xml", "summary.md"], "coverage only: no sonarqube-tests.xml without test results")
        XCTAssertTrue(console.diagnosticsText.contains("Markdown summary: \(output.path)/summary.md"), console.diagnosticsText)
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment), "xmllint is required")
        for dtd in ConsumerSchemas.coberturaDTD {
            let cobertura = try ProcessRunner.run(xmllint, ["--noout", "--dtdvalid", dtd.path, output.appendingPathComponent("cobertura.xml").path])
            XCTAssertEqual(cobertura.status, 0, cobertura.stderrText)
        }
        let xsd = ConsumerSchemas.repoRoot.appendingPathComponent("docs/schemas/sonar-generic-coverage.xsd")
        let sonar = try ProcessRunner.run(xmllint, ["--noout", "--schema", xsd.path, output.appendingPathComponent("sonarqube-coverage.xml").path])
        XCTAssertEqual(sonar.status, 0, sonar.stderrText)
        let summary = try String(contentsOf: output.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.hasPrefix("### Testscope\n"), summary)
        // The totals line printed on the terminal and the summary's line row are the same numbers.
        let line = try XCTUnwrap(console.outputText.split(separator: "\n").first { $0.hasPrefix("Coverage: lines ") }, console.outputText)
        let numbers = try XCTUnwrap(line.split(separator: "(").dropFirst().first?.split(separator: ")").first)  // "122/156"
        let parts = numbers.split(separator: "/")
        XCTAssertTrue(summary.contains("| Lines | \(parts[0]) | \(parts[1]) |"), "\(line)\n\(summary)")
    }
}
