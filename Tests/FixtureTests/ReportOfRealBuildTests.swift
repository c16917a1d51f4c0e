import Foundation
import TestscopeCoverage
import TestscopeExecution
import TestscopeKit
import TestscopeReports
import XCTest

/// `report` in-process on the real coverage build of Shapes (`ShapesBuild`, made once per run): from
/// SwiftPM's build folder (`--build-path`) and from a profile with its binary (`--profile`/`--binary`),
/// each giving the numbers of the report of llvm-cov's export of the same profiles.
final class ReportOfRealBuildTests: XCTestCase {
    var output: URL!
    let console = CapturedConsole()

    override func setUpWithError() throws {
        output = FileManager.default.temporaryDirectory.appendingPathComponent("kit-real-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    var pipeline: Pipeline {
        Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                 environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
    }

    /// A report of `request`'s inputs into `folder` with `formats`: its status and its coverage.json's totals.
    func report(_ build: ShapesBuild, _ folder: String, _ formats: [ReportFormat],
                _ inputs: (inout ReportRequest) -> Void) throws -> (status: Outcome.Status, totals: [String: [String: Any]]) {
        let folder = output.appendingPathComponent(folder)
        var request = ReportRequest(packageRoot: URL(fileURLWithPath: build.root), settings: ReportSettings(formats: formats, output: folder))
        inputs(&request)
        let outcome = try pipeline.report(request)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("coverage.json"))) as? [String: Any]
        return (outcome.status, try XCTUnwrap(json?["totals"] as? [String: [String: Any]]))
    }

    func testReportFromBuildPathAndFromProfileAndBinary() throws {
        let build = try ShapesBuild.get()
        let fromExport = try report(build, "export", [.json]) { $0.exports = [URL(fileURLWithPath: build.export)] }
        XCTAssertEqual(fromExport.status, .success, console.diagnosticsText)

        // --build-path reads what a coverage build and its test run leave in .build (SwiftPM's codecov folder).
        let fromBuild = try report(build, "build", [.json]) { $0.buildPath = URL(fileURLWithPath: build.root).appendingPathComponent(".build") }
        XCTAssertEqual(fromBuild.status, .success, console.diagnosticsText)
        // It says which profiles it read: those of the newest test binary (issue #11).
        XCTAssertTrue(console.diagnosticsText.contains(" profile(s) of ShapesPackageTests.xctest: "), console.diagnosticsText)
        XCTAssertEqual(fromBuild.totals["lines"]?["covered"] as? Int, fromExport.totals["lines"]?["covered"] as? Int)

        let fromProfile = try report(build, "profile", [.json, .text]) {
            $0.profiles = [URL(fileURLWithPath: build.merged)]
            $0.binaries = [URL(fileURLWithPath: build.binary)]
        }
        XCTAssertEqual(fromProfile.status, .success, console.diagnosticsText)
        XCTAssertEqual(fromProfile.totals["lines"]?["total"] as? Int, fromExport.totals["lines"]?["total"] as? Int)
        XCTAssertNotNil(fromExport.totals["lines"]?["total"] as? Int)
    }
}
