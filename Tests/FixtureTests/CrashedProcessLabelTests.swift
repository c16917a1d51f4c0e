import Foundation
import TestscopeCoverage
@testable import TestscopeKit
import TestscopeExecution
import TestscopeTestResults
import XCTest

/// A test that ran, and failed, in a process that a later test then crashed: llvm writes a process's profile at
/// exit, so the aggregate lost what that process ran, but the test's own per-test counts were saved. Its
/// per-test lines and its failure label must still show the changed code it ran ("touched"), never "not
/// touched" (found on swift-algorithms by a mutant that failed three tests and crashed two).
final class CrashedProcessLabelTests: XCTestCase {
    static let work = GitFixture.work("testscope-crashed-process")

    func testAFailureBeforeACrashIsTouchedByTheChangeItRan() throws {
        let package = Self.work.appendingPathComponent("Crashes")
        try? FileManager.default.removeItem(at: package)
        let files = [
            "Package.swift": """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(name: "Crashes", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])
            """,
            "Sources/Lib/Lib.swift": """
            public func onlyBeforeTheCrash() -> Int {
                return 1
            }

            public func crash() -> Int {
                fatalError("crashed on purpose")
            }

            public func afterTheCrash() -> Int { 3 }
            """,
            "Tests/LibTests/LibTests.swift": """
            import Lib
            import XCTest

            final class LibTests: XCTestCase {
                func testA_runsFirst() { XCTAssertEqual(onlyBeforeTheCrash(), 1) }
                func testB_crashes() { XCTAssertEqual(crash(), 0) }
                func testC_runsInTheRelaunchedProcess() { XCTAssertEqual(afterTheCrash(), 3) }
            }
            """,
            ".gitignore": ".build*\n",
        ]
        for (path, text) in files {
            let url = package.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        let repository = try GitFixture(existing: package)
        try repository.git("init", "-q")
        try repository.git("add", "-A")
        try repository.git("commit", "-q", "-m", "base")
        // The change: the body of the function only the first test runs; that test now fails on it.
        let source = package.appendingPathComponent("Sources/Lib/Lib.swift")
        try (try String(contentsOf: source, encoding: .utf8)).replacingOccurrences(of: "return 1", with: "return 2")
            .write(to: source, atomically: true, encoding: .utf8)

        let console = CapturedConsole()
        let pipeline = Pipeline(terminal: Terminal(useColor: false, showProgress: false, quiet: false, console: console),
                                environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
        var request = RunRequest(packageRoot: package, settings: ReportSettings(formats: [.json], output: Self.work.appendingPathComponent("out")))
        request.perTestCoverage = true
        request.settings.pullRequest.diffBase = "HEAD"
        request.settings.pullRequest.includeUncommitted = true
        request.selection.scratchPath = Self.work.appendingPathComponent("build")
        let outcome = try pipeline.run(request)
        XCTAssertEqual(outcome.status, .testsFailed, console.diagnosticsText)
        let tests = try XCTUnwrap(outcome.tests)
        XCTAssertEqual(tests.results.first { $0.id == "LibTests.LibTests/testB_crashes" }?.outcome, .crashed)
        XCTAssertEqual(tests.results.first { $0.id == "LibTests.LibTests/testA_runsFirst" }?.outcome, .failed)
        XCTAssertEqual(tests.failureLabels["LibTests.LibTests/testA_runsFirst"], .touched("Sources/Lib/Lib.swift:2"), console.outputText)

        // The aggregate lost the crashed process's counts; the test's own lines are kept.
        let perTest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.work.appendingPathComponent("out/per-test.json"))) as? [String: Any])
        let ids = try XCTUnwrap(perTest["contexts"] as? [[String: Any]]).map { $0["id"] as? String ?? "" }
        let file = try XCTUnwrap((perTest["files"] as? [[String: Any]])?.first { $0["path"] as? String == "Sources/Lib/Lib.swift" })
        let runs = try XCTUnwrap(file["runs"] as? [[String: Any]])
        let first = try XCTUnwrap(ids.firstIndex(of: "LibTests.LibTests/testA_runsFirst"))
        XCTAssertEqual(runs.first { $0["context"] as? Int == first }?["lines"] as? String, "1-3")
        let coverage = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.work.appendingPathComponent("out/coverage.json"))) as? [String: Any])
        let lines = try XCTUnwrap((coverage["files"] as? [[String: Any]])?.first { $0["path"] as? String == "Sources/Lib/Lib.swift" }?["lines"] as? [[String: Any]])
        XCTAssertEqual(lines.first { $0["line"] as? Int == 2 }?["count"] as? Int, 0, "the crashed process wrote no profile")

        // Without the relaunched process's test, every process crashed: the results are reported, with no coverage.
        request.selection.skips = ["testC_"]
        let crashed = try pipeline.run(request)
        XCTAssertEqual(crashed.status, .testsFailed, console.diagnosticsText)
        XCTAssertEqual(crashed.tests?.results.map(\.outcome.rawValue).sorted(), ["crashed", "failed"])
        XCTAssertTrue(console.diagnosticsText.contains("no test process exited normally, so there is no coverage"), console.diagnosticsText)
    }
}
