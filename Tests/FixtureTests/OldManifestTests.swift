import Foundation
import TestscopeExecution
import TestscopeKit
import TestscopeRun
import XCTest

/// A package whose manifest declares a tools version before 5.5 (swift-algorithms before 1.0.0, many older
/// packages): SwiftPM compiles the test entry point as top-level code there, so Testscope's `@main` entry point
/// did not build ("'main' attribute cannot be used in a module that contains top-level code") while
/// `swift test` passed. In-process on a copy of the Shapes fixture with its first line set to 5.4.
final class OldManifestTests: XCTestCase {
    func testAPackageOfToolsVersion54RunsWithPerTestCoverage() throws {
        let work = GitFixture.work("testscope-old-manifest")
        let fm = FileManager.default
        let package = try GitFixture.copy("Shapes", into: work)
        let manifest = package.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        let old = "// swift-tools-version:5.4\n" + text.drop { $0 != "\n" }.dropFirst()
        try old.write(to: manifest, atomically: true, encoding: .utf8)
        XCTAssertTrue(EntryPointSource.isTopLevel(manifest: old))

        let console = CapturedConsole()
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        var request = RunRequest(packageRoot: package, settings: ReportSettings(formats: [.json], output: work.appendingPathComponent("out")))
        request.perTestCoverage = true
        request.selection.scratchPath = work.appendingPathComponent("build")
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        XCTAssertFalse(try XCTUnwrap(outcome.tests).results.isEmpty)
        XCTAssertTrue(fm.fileExists(atPath: work.appendingPathComponent("out/per-test.json").path))
    }

    func testTheToolsVersionIsReadFromTheManifestsFirstLine() {
        XCTAssertTrue(EntryPointSource.isTopLevel(manifest: "// swift-tools-version:5.4\nimport PackageDescription"))
        XCTAssertTrue(EntryPointSource.isTopLevel(manifest: "// swift-tools-version: 4.2"))
        XCTAssertFalse(EntryPointSource.isTopLevel(manifest: "// swift-tools-version:5.5"))
        XCTAssertFalse(EntryPointSource.isTopLevel(manifest: "// swift-tools-version:6.0\n// swift-tools-version:5.4"))
        XCTAssertFalse(EntryPointSource.isTopLevel(manifest: "import PackageDescription"))
    }
}
