import Foundation
import TestscopeExecution
import TestscopeTestSupport
import XCTest

/// The built `testscope report --format cobertura,sonarqube,markdown` on a recorded export: the three
/// files and only them, accepted by xmllint (coverage-04 DTD, SonarQube's schema), and the note.
final class CIFormatsTests: XCTestCase {
    func testReportWritesTheCIFormats() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("ci-formats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let recorded = TestscopeProcess.samples.appendingPathComponent("recorded/Inventory")
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Inventory")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: recorded.appendingPathComponent("meta.json"))) as? [String: Any]
        let recordedRoot = try XCTUnwrap(meta?["packageRoot"] as? String)
        let result = try TestscopeProcess.run(
            ["report", "--package-path", package.path, "--export", recorded.appendingPathComponent("coverage.json").path,
             "--path-equivalence", "\(recordedRoot),\(package.path)", "--output", output.path, "--format", "cobertura,sonarqube,markdown"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: output.path)),
                       [".gitignore", "cobertura.xml", "sonarqube-coverage.xml", "summary.md"], "coverage only: no sonarqube-tests.xml without test results")
        XCTAssertTrue(result.stderr.contains("Markdown summary: \(output.path)/summary.md"), result.stderr)
        let xmllint = try XCTUnwrap(Toolchain.findInPath("xmllint", environment: ProcessInfo.processInfo.environment))
        for dtd in ConsumerSchemas.coberturaDTD {
            let cobertura = try ProcessRunner.run(xmllint, ["--noout", "--dtdvalid", dtd.path, output.appendingPathComponent("cobertura.xml").path])
            XCTAssertEqual(cobertura.status, 0, cobertura.stderrText)
        }
        let xsd = TestscopeProcess.repoRoot.appendingPathComponent("docs/schemas/sonar-generic-coverage.xsd")
        let sonar = try ProcessRunner.run(xmllint, ["--noout", "--schema", xsd.path, output.appendingPathComponent("sonarqube-coverage.xml").path])
        XCTAssertEqual(sonar.status, 0, sonar.stderrText)
        let summary = try String(contentsOf: output.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.hasPrefix("### Testscope\n"), summary)
        // The totals line printed on the terminal and the summary's line row are the same numbers.
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.hasPrefix("Coverage: lines ") })
        let numbers = try XCTUnwrap(line.split(separator: "(").dropFirst().first?.split(separator: ")").first)  // "122/156"
        let parts = numbers.split(separator: "/")
        XCTAssertTrue(summary.contains("| Lines | \(parts[0]) | \(parts[1]) |"), "\(line)\n\(summary)")
    }
}
