import Foundation
import XCTest

/// `testscope report` refusing test results it cannot read: exit status 65 and one line on stderr (the
/// imports themselves, in-process: TestscopeKitTests' ReportInProcessTests).
final class TestImportTests: XCTestCase {
    var output: URL!
    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("import") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func testBadTestInputs() throws {
        let notXML = output.appendingPathComponent("x.xml")
        try "not xml at all".write(to: notXML, atomically: true, encoding: .utf8)
        let junit = try TestscopeProcess.run(["report", "--junit", notXML.path, "--output", output.appendingPathComponent("o").path])
        XCTAssertEqual(junit.status, 65)
        XCTAssertEqual(junit.errorLines.count, 1, junit.stderr)
        XCTAssertTrue(junit.stderr.contains("x.xml"))
        let missing = try TestscopeProcess.run(["report", "--event-stream", "/nonexistent/events.jsonl", "--output", output.appendingPathComponent("o").path])
        XCTAssertEqual(missing.status, 65)
        XCTAssertTrue(missing.stderr.hasPrefix("testscope: error: cannot read /nonexistent/events.jsonl"), missing.stderr)
    }
}
