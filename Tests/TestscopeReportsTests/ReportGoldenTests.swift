import Foundation
import XCTest
@testable import TestscopeCoverage
import TestscopeExecution
@testable import TestscopeReports

/// Every recorded sample × every format has a golden (times and absolute paths normalized).
final class ReportGoldenTests: XCTestCase {
    static let repoRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = ["Shapes", "Inventory"]

    /// The model of a recorded sample, mapped onto the fixture package in this checkout.
    static func report(_ sample: String) throws -> CoverageModel {
        let root = repoRoot.appendingPathComponent("sample-profiles/packages/\(sample)")
        let recorded = repoRoot.appendingPathComponent("sample-profiles/recorded/\(sample)")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let recordedRoot = try XCTUnwrap(meta?["packageRoot"] as? String)
        let toolchain = try Toolchain.locate()
        let options = CoverageBuildOptions(
            packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: root.path),
            pathEquivalences: [PathEquivalence(from: recordedRoot, to: root.path)],
            demangler: SwiftDemangler(library: toolchain.demangler),
            createdAt: Date(timeIntervalSince1970: 0))
        return try CoverageBuilder(options: options).build(exports: [recorded.appendingPathComponent("coverage.json")])
    }

    /// Replaces this checkout's absolute paths.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: repoRoot.path, with: "$REPO")
    }

    func testGoldens() throws {
        let plain = Terminal(useColor: false, showProgress: false, quiet: true)
        for sample in Self.samples {
            let report = try Self.report(sample)
            try Golden.assertMatches(Self.normalized(try TextReport(terminal: plain, showMissing: true).renderString(report)), "\(sample)/coverage.txt")
            let renderers: [(String, any ReportRenderer<CoverageModel>)] = [
                ("coverage.json", JSONReport(generatorVersion: "test")),
                ("coverage.lcov", LCOVReport()),
                ("cobertura.xml", CoberturaReport(sourceRoot: RepositoryRoot.find(from: URL(fileURLWithPath: report.metadata.packageRoot)).path,
                                                  generatorVersion: "test")),
                ("sonarqube-coverage.xml", SonarQubeCoverageReport(sourceRoot: RepositoryRoot.find(from: URL(fileURLWithPath: report.metadata.packageRoot)).path)),
            ]
            for (name, renderer) in renderers {
                try Golden.assertMatches(Self.normalized(try renderer.renderString(report)), "\(sample)/\(name)")
            }
        }
    }

    func testJSONIsValidAndAgreesWithTheModel() throws {
        let report = try Self.report("Inventory")
        let text = try JSONReport(generatorVersion: "test").renderString(report)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let files = try XCTUnwrap(object["files"] as? [[String: Any]])
        XCTAssertEqual(files.count, report.files.count)
        for (json, model) in zip(files, report.files) {
            let lines = try XCTUnwrap(json["lines"] as? [[String: Any]])
            XCTAssertEqual(lines.count, model.lines.count)
            XCTAssertEqual(lines.compactMap { ($0["count"] as? NSNumber)?.uint64Value }, model.lines.map(\.count))
            let partial = try XCTUnwrap(json["partialLines"] as? [[String: Any]])
            XCTAssertEqual(partial.count, model.lines.filter(\.isPartial).count)
        }
        let totals = try XCTUnwrap(object["totals"] as? [String: Any])
        let lines = try XCTUnwrap(totals["lines"] as? [String: Any])
        XCTAssertEqual(lines["covered"] as? Int, report.totals.lines.covered)
        XCTAssertEqual(lines["total"] as? Int, report.totals.lines.total)
    }

    func testTextColoursFollowWatermarksAndNoColor() throws {
        let report = try Self.report("Shapes")
        let colored = try TextReport(terminal: Terminal(useColor: true, showProgress: false, quiet: true),
                                     watermarks: Watermarks(low: 50, high: 80)).renderString(report)
        XCTAssertTrue(colored.contains("\u{1B}[31m"), "a 0 % file is red")
        XCTAssertTrue(colored.contains("\u{1B}[32m"), "a file above 80 % is green")
        let plain = try TextReport(terminal: Terminal(useColor: false, showProgress: false, quiet: true)).renderString(report)
        XCTAssertFalse(plain.contains("\u{1B}"))
    }

    func testPercentFormatting() {
        XCTAssertEqual(Format.percent(CoverageRatio(covered: 0, total: 0)), "–")
        XCTAssertEqual(Format.percent(CoverageRatio(covered: 9999, total: 10000)), "99.99%")
        XCTAssertEqual(Format.percent(CoverageRatio(covered: 99999, total: 100000)), "99.99%")
        XCTAssertEqual(Format.percent(CoverageRatio(covered: 1, total: 3)), "33.33%")
        XCTAssertEqual(Format.percent(CoverageRatio(covered: 2, total: 2)), "100.00%")
        XCTAssertEqual(Format.ranges([1...1, 4...7]), "1, 4-7")
    }

    /// genhtml (Debian lcov) must accept our LCOV without warnings.
    func testGenhtmlAcceptsLCOVWithoutWarnings() throws {
        let genhtml = try XCTUnwrap(Toolchain.findInPath("genhtml", environment: ProcessInfo.processInfo.environment),
                                    "genhtml is required (apt-get install lcov)")
        for sample in Self.samples {
            let report = try Self.report(sample)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("genhtml-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let lcov = dir.appendingPathComponent("coverage.lcov")
            try LCOVReport().renderString(report).write(to: lcov, atomically: true, encoding: .utf8)
            let result = try ProcessRunner.run(genhtml, [lcov.path, "--output-directory", dir.appendingPathComponent("html").path])
            let output = result.stdoutText + result.stderrText
            XCTAssertEqual(result.status, 0, output)
            XCTAssertFalse(output.uppercased().contains("WARNING"), output)
            XCTAssertFalse(output.uppercased().contains("ERROR"), output)
            let expectedLines = "\(report.totals.lines.covered) of \(report.totals.lines.total) line"
            XCTAssertTrue(output.contains(expectedLines), "genhtml's total should be ours (\(expectedLines)): \(output)")
        }
    }
}
