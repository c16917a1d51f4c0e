import Foundation
import XCTest
import TestscopeExecution

/// `--open`: the HTML report goes to the desktop's opener found on PATH; without one, a note and status 0.
final class OpenReportTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws { scratch = try TestscopeProcess.temporaryDirectory("open") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// A fake `xdg-open` (and `open`) that records its arguments and exits with `status`.
    private func fakeOpener(status: Int32 = 0) throws -> (bin: URL, record: URL) {
        let bin = scratch.appendingPathComponent("bin"), record = scratch.appendingPathComponent("opened.txt")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for name in ["xdg-open", "open"] {
            let script = bin.appendingPathComponent(name)
            try "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '\(record.path)'\nexit \(status)\n".write(to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        }
        return (bin, record)
    }

    func testOpenHandsTheHTMLIndexToTheOpener() throws {
        let (bin, record) = try fakeOpener()
        let output = scratch.appendingPathComponent("report")
        let result = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes") + ["--output", output.path, "--open"],
                                              environment: ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let opened = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(opened, [output.appendingPathComponent("index.html").path])
        XCTAssertTrue(FileManager.default.fileExists(atPath: opened[0]))
    }

    func testOpenWithoutAnOpenerOrWithAFailingOneIsANoteNotAFailure() throws {
        let output = scratch.appendingPathComponent("report")
        let empty = scratch.appendingPathComponent("empty-bin")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        // The toolchain named directly: without it on PATH the names would be mangled, with a warning of its own.
        let swift = try XCTUnwrap(Toolchain.findInPath("swift", environment: ProcessInfo.processInfo.environment), "no swift on PATH")
        let missing = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes") + ["--output", output.path, "--open", "--quiet"],
                                               environment: ["PATH": empty.path, "TESTSCOPE_SWIFT": swift.path])
        XCTAssertEqual(missing.status, 0, missing.stderr)
        XCTAssertEqual(missing.errorLines.count, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("is not on PATH; open \(output.path)/index.html in a browser"), missing.stderr)

        let (bin, record) = try fakeOpener(status: 3)
        let failing = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes") + ["--output", output.path, "--open", "--quiet"],
                                               environment: ["PATH": bin.path, "TESTSCOPE_SWIFT": swift.path])
        XCTAssertEqual(failing.status, 0, failing.stderr)
        XCTAssertTrue(failing.stderr.contains("exited with status 3"), failing.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: record.path))

        let noHTML = try TestscopeProcess.run(try TestscopeProcess.recordedReportArguments("Shapes") + ["--output", output.path, "--format", "json", "--open", "--quiet"],
                                              environment: ["PATH": bin.path])
        XCTAssertEqual(noHTML.status, 0, noHTML.stderr)
        XCTAssertTrue(noHTML.stderr.contains("no HTML report was written"), noHTML.stderr)
    }
}
