import Foundation
import XCTest
import TestscopeExecution
@testable import TestscopeReports

/// The output folder's `.testscope-pages.json`: which pages the top bar links, who owns which page,
/// and the `--format` parser every command shares.
final class PagesManifestTests: XCTestCase {
    var folder: URL!
    var output: OutputFolder { OutputFolder(folder) }

    override func setUpWithError() throws { folder = try HTMLTestSupport.temporaryFolder("pages-manifest") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func touch(_ name: String) throws { try Data("<html>".utf8).write(to: folder.appendingPathComponent(name)) }

    /// What `run`/`report` records and links (as CoveragePipeline does).
    func report(_ kinds: [ReportPageKind], command: String = "report") throws -> PagesManifest {
        let pages = PagesManifest.read(in: output).replacing(.testReport, with: kinds, command: command, in: output)
        for kind in kinds { try touch(kind.file) }
        try pages.write(into: output)
        return pages
    }

    /// What `testscope flaky` records and links.
    func flaky() throws -> PagesManifest {
        let pages = PagesManifest.read(in: output).replacing(.flaky, with: [.flaky], command: "flaky", in: output)
        try touch("flaky.html")
        try pages.write(into: output)
        return pages
    }

    func testAFreshReportWithoutTestsDoesNotLinkAnEarlierTestsPage() throws {
        XCTAssertEqual(try report([.coverage, .tests], command: "run").navigation, [.coverage, .tests])
        // tests.html of that run is still in the folder, but this report has no tests.
        let fresh = try report([.coverage])
        XCTAssertEqual(fresh.navigation, [.coverage])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("tests.html").path))
        XCTAssertEqual(PagesManifest.read(in: output).pages, [.init(kind: .coverage, file: "index.html", command: "report")])
        // And the coverage report's top bar says so.
        let html = try HTMLTestSupport.htmlReport(singleFile: true, navigation: fresh.navigation).renderString(try HTMLTestSupport.report("Shapes"))
        XCTAssertFalse(html.contains("href=\"tests.html\""))
    }

    func testTheFlakyPageStaysLinkedFromTheReportAndTheReportFromIt() throws {
        XCTAssertEqual(try flaky().navigation, [.flaky])
        XCTAssertEqual(try report([.coverage, .tests], command: "run").navigation, [.coverage, .tests, .flaky], "flaky.html of `testscope flaky` stays")
        XCTAssertEqual(try report([.coverage]).navigation, [.coverage, .flaky], "a fresh report keeps another command's page")
        XCTAssertEqual(try flaky().navigation, [.coverage, .flaky], "and the Flaky page links the report")
        let manifest = PagesManifest.read(in: output)
        XCTAssertEqual(manifest.pages.map(\.command), ["report", "flaky"])
        XCTAssertEqual(manifest.pages.map(\.kind), [.coverage, .flaky])
    }

    func testPagesAreNeverInferredFromFilesInTheFolder() throws {
        try touch("flaky.html")
        try touch("tests.html")
        XCTAssertEqual(try report([.coverage]).navigation, [.coverage], "files nobody recorded are not linked")
        try touch("index.html")
        XCTAssertEqual(try flaky().navigation, [.coverage, .flaky])
        // A recorded page deleted by hand is not linked either.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("index.html"))
        XCTAssertEqual(try flaky().navigation, [.flaky])
    }

    func testTheLandingIndexIsRecordedNotSniffed() throws {
        let testsOnly = try report([.tests, .testsLanding])
        XCTAssertTrue(testsOnly.hasLandingIndex)
        XCTAssertEqual(testsOnly.navigation, [.tests], "the landing index is no Coverage page")
        XCTAssertEqual(try flaky().navigation, [.tests, .flaky])
        let withCoverage = try report([.coverage, .tests])
        XCTAssertFalse(withCoverage.hasLandingIndex)
        // An index.html that looks like a landing page is still coverage when the manifest says so.
        try "<html data-page=\"tests-landing\">".write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        XCTAssertFalse(PagesManifest.read(in: output).hasLandingIndex)
        XCTAssertEqual(try flaky().navigation, [.coverage, .tests, .flaky])
    }

    func testTheManifestIsWrittenAtomicallyAndReadBack() throws {
        let manifest = PagesManifest(pages: [.init(kind: .testsLanding, file: "index.html", command: "run")])
        try manifest.write(into: output)
        XCTAssertEqual(PagesManifest.read(in: output), manifest)
        let text = try String(contentsOf: folder.appendingPathComponent(PagesManifest.fileName), encoding: .utf8)
        XCTAssertTrue(text.contains("\"kind\" : \"tests-landing\""), text)
        XCTAssertTrue(text.contains("\"version\" : 1"), text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [PagesManifest.fileName], "no temporary file left")
        // Unreadable or unknown: nothing is linked from it.
        try "{not json".write(to: folder.appendingPathComponent(PagesManifest.fileName), atomically: true, encoding: .utf8)
        XCTAssertEqual(PagesManifest.read(in: output), PagesManifest())
        try #"{"version": 2, "pages": [{"kind": "flaky", "file": "flaky.html", "command": "flaky"}]}"#
            .write(to: folder.appendingPathComponent(PagesManifest.fileName), atomically: true, encoding: .utf8)
        XCTAssertEqual(PagesManifest.read(in: output).pages, [])
    }

    func testFormatParsingKeepsTheCLIWording() throws {
        XCTAssertEqual(try ReportFormat.parse([], defaults: [.text, .html]), [.text, .html])
        XCTAssertEqual(try ReportFormat.parse([" HTML ,json", "html", "", "Text"], defaults: []), [.html, .json, .text])
        XCTAssertThrowsError(try ReportFormat.parse(["json,pdf"], defaults: [])) { error in
            XCTAssertEqual((error as? ReportFormatError)?.message, "unknown format 'pdf'; choose from: text, json, lcov, junit, html, cobertura, sonarqube, markdown")
        }
        XCTAssertEqual(try ReportFormat.parse(["junit,html"], supported: ReportFormat.flakyFormats, defaults: ReportFormat.flakyFormats),
                       [.junit, .html])
        XCTAssertThrowsError(try ReportFormat.parse(["lcov"], supported: ReportFormat.flakyFormats, defaults: [])) { error in
            XCTAssertEqual("\(error)", "unknown format 'lcov'; choose from: text, json, junit, html, markdown", "flaky names only its formats")
        }
        XCTAssertThrowsError(try ReportFormat.parse(["cobertura"], supported: ReportFormat.flakyFormats, defaults: []), "flaky has no coverage")
        XCTAssertEqual(try ReportFormat.parse(["Cobertura, sonarqube,markdown"], defaults: []), [.cobertura, .sonarqube, .markdown])
    }
}
