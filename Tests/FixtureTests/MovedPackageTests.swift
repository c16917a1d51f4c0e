import Foundation
import TestscopeExecution
import TestscopeRun
@testable import TestscopeKit
import XCTest

/// A package moved (or copied) with its build folder: clang refuses the precompiled modules of a module cache
/// made at the old path ("was compiled with module cache path"), so the build failed and no test ran. `run`
/// removes the module cache, says so, and builds again.
final class MovedPackageTests: XCTestCase {
    static let work = GitFixture.work("testscope-moved")

    func testAMovedBuildFolderBuildsAgain() throws {
        let fm = FileManager.default
        try? fm.removeItem(at: Self.work)
        let first = try GitFixture.copy("Shapes", into: Self.work.appendingPathComponent("before"))
        let console = CapturedConsole()
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        func run(_ package: URL) throws -> Outcome {
            try pipeline.run(RunRequest(packageRoot: package, settings: ReportSettings(formats: [.json], output: package.appendingPathComponent("out"))))
        }
        XCTAssertEqual(try run(first).status, .success, console.diagnosticsText)
        XCTAssertFalse(console.diagnosticsText.contains(BuildArtifacts.builtElsewhereNote))
        let moved = Self.work.appendingPathComponent("after/Shapes")
        try fm.createDirectory(at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fm.moveItem(at: first, to: moved)
        let outcome = try run(moved)
        XCTAssertEqual(outcome.status, .success, console.diagnosticsText)
        XCTAssertTrue(console.diagnosticsText.contains(BuildArtifacts.builtElsewhereNote), console.diagnosticsText)
        XCTAssertFalse(try XCTUnwrap(outcome.tests).results.isEmpty)

        // `flaky` builds through the same mechanism: moved once more, it builds and runs its orders.
        let again = Self.work.appendingPathComponent("again/Shapes")
        try fm.createDirectory(at: again.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fm.moveItem(at: moved, to: again)
        var request = FlakyRequest(packageRoot: again, settings: ReportSettings(formats: [.json], output: again.appendingPathComponent("out-flaky")))
        (request.seed, request.runs, request.jobs, request.nodModes) = (1, 2, 1, [.plain])
        let flaky = try pipeline.flaky(request)
        XCTAssertFalse(try XCTUnwrap(flaky.flaky, console.diagnosticsText).findings.isEmpty)
        try? fm.removeItem(at: Self.work)
    }
}
