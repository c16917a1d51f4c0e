import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports
@testable import TestscopeTestResults

/// SonarQube's generic coverage and test execution files on the recorded samples: checked with
/// xmllint against schemas written from SonarSource's documentation (docs/schemas) and by parsing
/// every required attribute back against the model.
final class SonarQubeReportTests: XCTestCase {
    static let schemas = ReportGoldenTests.repoRoot.appendingPathComponent("docs/schemas")

    func validate(_ text: String, schema: String) throws {
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment),
                                    "xmllint is required (apt-get install libxml2-utils)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sonar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("report.xml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(xmllint, ["--noout", "--schema", Self.schemas.appendingPathComponent(schema).path, file.path])
        XCTAssertEqual(result.status, 0, "\(schema): \(result.stderrText)")
        XCTAssertTrue(result.stderrText.contains("validates"), result.stderrText)
    }

    static func tests(crash: Bool) throws -> (TestRunResults, SonarQubeTestsReport) {
        let run = try TestsHTMLFixture.results(crash: crash)
        let root = URL(fileURLWithPath: TestsHTMLFixture.packageRoot)
        let index = TestSourceIndex.scan(packageRoot: root, testDirectories: PackageLayout.conventional(root: root).testDirectories)
        return (run, SonarQubeTestsReport(sourceRoot: RepositoryRoot.find(from: root).path, packageRoot: root.path, index: index))
    }

    func testCoverageHasEveryExecutableLineOfEveryFile() throws {
        for sample in CoberturaReportTests.samples {
            let report = try ReportGoldenTests.report(sample)
            let root = ReportGoldenTests.repoRoot.appendingPathComponent("sample-profiles/packages/\(sample)")
            let sourceRoot = RepositoryRoot.find(from: root).path
            let text = try SonarQubeCoverageReport(sourceRoot: sourceRoot).renderString(report)
            try validate(text, schema: "sonar-generic-coverage.xsd")
            let xml = try XMLElements.parse(text)
            XCTAssertEqual(xml.named("coverage").first?.attributes["version"], "1")
            let files = xml.named("file")
            XCTAssertEqual(files.compactMap { $0.attributes["path"] }, report.files.map { RepositoryRoot.relative($0.path, to: sourceRoot) })
            let lines = xml.named("lineToCover")
            XCTAssertEqual(lines.compactMap { $0.attributes["lineNumber"] }, report.files.flatMap { $0.lines.map { String($0.line) } })
            XCTAssertEqual(lines.compactMap { $0.attributes["covered"] }, report.files.flatMap { $0.lines.map { $0.isCovered ? "true" : "false" } })
            XCTAssertEqual(lines.filter { $0.attributes["covered"] == "true" }.count, report.totals.lines.covered)
            XCTAssertFalse(lines.contains { $0.attributes["branchesToCover"] != nil }, "Swift has no branch regions")
        }
    }

    func testTestExecutionsGroupedByTheirDeclaringFile() throws {
        for crash in [false, true] {
            let (run, report) = try Self.tests(crash: crash)
            let text = try report.renderString(run)
            try validate(text, schema: "sonar-generic-execution.xsd")
            let grouped = report.grouped(run)
            XCTAssertEqual(grouped.unplaced.map(\.id), [], "every Crashy test is found in a file")
            let xml = try XMLElements.parse(text)
            let paths = xml.named("file").compactMap { $0.attributes["path"] }
            XCTAssertTrue(paths.allSatisfy { $0.hasPrefix("sample-profiles/packages/Crashy/Tests/CrashyTests/") }, "\(paths)")
            XCTAssertEqual(Set(paths).count, paths.count, "one element per file")
            let cases = xml.named("testCase")
            XCTAssertEqual(cases.count, run.results.count)
            // Each test sits under the file that declares its class or suite.
            var enclosing: [String] = []
            var current = ""
            for element in xml.elements {
                if element.name == "file" { current = element.attributes["path"] ?? "" }
                if element.name == "testCase" { enclosing.append(current) }
            }
            for ((element, result), path) in zip(zip(cases, grouped.files.flatMap(\.results)), enclosing) {
                let declared = try XCTUnwrap(report.index.file(for: result))
                XCTAssertEqual(RepositoryRoot.relative(declared, to: report.sourceRoot), path)
                let source = try String(contentsOfFile: declared, encoding: .utf8)
                XCTAssertTrue(source.contains(result.suite.map { " \($0.split(separator: ".").last!)" } ?? String(result.name.prefix { $0 != "(" })), "\(result.id) in \(declared)")
                XCTAssertEqual(element.attributes["duration"], String(SonarQubeTestsReport.milliseconds(result.duration)))
                XCTAssertEqual(element.attributes["name"], ([result.suite].compactMap { $0 } + [result.caseName]).joined(separator: "."))
            }
            let junit = JUnitReport(strict: true, packageRoot: TestsHTMLFixture.packageRoot)
            XCTAssertEqual(xml.named("failure").count, junit.count(run.results, .failure))
            XCTAssertEqual(xml.named("error").count, junit.count(run.results, .error))
            XCTAssertEqual(xml.named("skipped").count, junit.count(run.results, .skipped))
            XCTAssertTrue(xml.elements.filter { ["failure", "error", "skipped"].contains($0.name) }.allSatisfy { $0.attributes["message"] != nil })
            if crash { XCTAssertGreaterThan(xml.named("error").count, 0, "the crash is an error") }
        }
    }

    func testGoldens() throws {
        for crash in [false, true] {
            let (run, report) = try Self.tests(crash: crash)
            try Golden.assertMatches(ReportGoldenTests.normalized(try report.renderString(TestsHTMLFixture.normalized(run))),
                                     "Crashy/sonarqube-tests-\(crash ? "crash" : "normal").xml")
        }
    }

    func testTestSourceIndexReadsDeclarations() {
        let source = """
        // class NotThis: a comment
        @Suite("Totals") struct TotalsSuite {
            class func helper() {}
        }
        final class LaterXCTests: XCTestCase {}
        @MainActor enum Free {}
        """
        XCTAssertEqual(TestSourceIndex.declaredTypes(source), ["TotalsSuite", "LaterXCTests", "Free"])
    }

    func testBoundedAndEscaped() throws {
        var result = TestCaseResult(id: "M.C/t", framework: .xctest, module: "M", suite: "C<&>", name: "t\u{07}", outcome: .failed,
                                    duration: 1.2345, location: SourceLocation(file: "/p/Tests/M/C.swift", line: 3))
        result.issues = [TestIssue(kind: .failure, message: "\u{1B}[31mred\u{1B}[0m \u{0B}" + String(repeating: "x", count: 200_000))]
        var index = TestSourceIndex()
        index.folders = ["/p/Tests"]
        let text = try SonarQubeTestsReport(sourceRoot: "/p", packageRoot: "/p", index: index).renderString(TestRunResults(results: [result]))
        try validate(text, schema: "sonar-generic-execution.xsd")
        XCTAssertTrue(text.contains("<file path=\"Tests/M/C.swift\">"), text.prefix(300).description)
        XCTAssertTrue(text.contains("name=\"C&lt;&amp;&gt;.t\u{FFFD}\" duration=\"1235\""), text.prefix(300).description)
        XCTAssertLessThan(text.utf8.count, 70_000, "the details are capped like junit.xml's")
    }
}
