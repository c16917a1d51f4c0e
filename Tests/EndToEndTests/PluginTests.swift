import Foundation
import XCTest

/// The command plugin, as a user meets it: a package that depends on this checkout by path runs
/// `swift package --allow-writing-to-package-directory testscope run`, and gets the reports of its own code.
///
/// The consumer package lives in `.build-plugin-test/Consumer` of this checkout (git ignores `.build-*`), written
/// anew on every run but keeping its `.build`: the first run builds the testscope tool there from scratch, later
/// runs reuse it. Its dependencies resolve as this checkout's do (from the same package sources), so the test
/// needs no network. Three `swift package` commands, each checking what only the plugin does: `run` (the build
/// in the plugin's work folder), `report` (a relative path, testscope's error line and its status named),
/// `flaky` (run's build reused: no second build of the package, no `describe` in the locked `.build`). Usage
/// errors are the binary's (BadInputTests); the plugin passes any status on as `report`'s gate shows.
final class PluginTests: XCTestCase {
    static let consumer = TestscopeProcess.repoRoot.appendingPathComponent(".build-plugin-test/Consumer")

    /// Writes the consumer: a library with a used and an unused function, and one XCTest that calls the used one twice.
    private func writeConsumer() throws {
        let fm = FileManager.default
        for name in ["Package.swift", "Sources", "Tests", "report", "report-flaky", "Package.resolved"] {
            try? fm.removeItem(at: Self.consumer.appendingPathComponent(name))
        }
        let files = [
            "Package.swift": """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Consumer",
                dependencies: [.package(path: "\(TestscopeProcess.repoRoot.path)")],
                targets: [
                    .target(name: "Greeter"),
                    .testTarget(name: "GreeterTests", dependencies: ["Greeter"]),
                ]
            )
            """,
            "Sources/Greeter/Greeter.swift": """
            public func greet(_ name: String) -> String {
                if name.isEmpty {
                    return "Hello, nobody"
                }
                return "Hello, \\(name)"
            }

            public func unused() -> Int {
                return 42
            }
            """,
            "Tests/GreeterTests/GreeterTests.swift": """
            import Greeter
            import XCTest

            final class GreeterTests: XCTestCase {
                func testGreet() {
                    XCTAssertEqual(greet("Ada"), "Hello, Ada")
                    XCTAssertEqual(greet("Bob"), "Hello, Bob")
                }
            }
            """,
        ]
        for (path, text) in files {
            let url = Self.consumer.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
        }
    }

    /// `swift package …` in the consumer, stopped after `limit` seconds (coreutils timeout) so a lock wait fails the test.
    private func swiftPackage(_ arguments: [String], limit: Int = 900) throws -> TestscopeProcess.Result {
        let (status, text) = try TestscopeProcess.runLogged(["swift", "package", "--package-path", Self.consumer.path] + arguments,
                                                            limit: limit, log: Self.consumer.appendingPathComponent("swift-package.log"))
        return TestscopeProcess.Result(status: status, stdout: text, stderr: text)
    }

    func testPluginRunsTestscopeOnTheDependentPackage() throws {
        try writeConsumer()
        let started = Date()
        let output = Self.consumer.appendingPathComponent("report")
        let result = try swiftPackage(["--allow-writing-to-package-directory", "testscope", "run",
                                       "--output", output.path, "--format", "json,junit,html,lcov"])
        print("plugin run took \(Int(Date().timeIntervalSince(started))) s")
        XCTAssertEqual(result.status, 0, result.stdout)
        for name in ["coverage.json", "coverage.lcov", "junit.xml", "index.html"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(name).path), "\(name)\n\(result.stdout)")
        }
        // The build went into the plugin's work folder, not into the package's locked .build (a nested build there waits forever).
        let work = Self.consumer.appendingPathComponent(".build/plugins/TestscopePlugin/outputs/build")
        XCTAssertTrue(FileManager.default.fileExists(atPath: work.path), "no build in the plugin's work folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.consumer.appendingPathComponent(".build/testscope").path))

        // The numbers are the consumer's: its one source file, `greet`'s last line ran twice, `unused` never.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("coverage.json"))) as? [String: Any])
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        XCTAssertEqual(files.compactMap { $0["path"] as? String }, ["Sources/Greeter/Greeter.swift"])
        var counts: [Int: Int] = [:]
        for line in try XCTUnwrap(files.first?["lines"] as? [[String: Any]]) {
            counts[try XCTUnwrap(line["line"] as? Int)] = (line["count"] as? NSNumber)?.intValue
        }
        XCTAssertEqual(counts[5], 2, "return \"Hello, \\(name)\" ran for Ada and Bob: \(counts)")
        XCTAssertEqual(counts[3], 0, "the empty-name branch never ran: \(counts)")
        XCTAssertEqual(counts[9], 0, "unused() never ran: \(counts)")
        let junit = try String(contentsOf: output.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("testGreet"), junit)

        // `report` through the plugin renders that run again (no inputs: the output folder's record), with a gate;
        // testscope's own error line and a failing status reach the user.
        // The plugin runs testscope in the package folder: a relative --output is the package's `report`.
        let reportStarted = Date()
        let report = try swiftPackage(["--allow-writing-to-package-directory", "testscope", "report",
                                       "--output", "report", "--format", "text", "--fail-under-lines", "100"])
        print("plugin report took \(Int(Date().timeIntervalSince(reportStarted))) s")
        XCTAssertNotEqual(report.status, 0, report.stdout)
        XCTAssertTrue(report.stdout.contains("testscope exited with status 2"), "the gate's status is named: \(report.stdout)")
        XCTAssertTrue(report.stdout.contains("reporting the last run in \(output.path) again"), report.stdout)
        XCTAssertTrue(report.stdout.contains("Sources/Greeter/Greeter.swift"), report.stdout)
        XCTAssertTrue(report.stdout.contains("testscope: coverage gate failed: "), report.stdout)
        // `flaky` through the plugin reuses run's build in the plugin's work folder (its `dump-package` too: in the
        // locked `.build` it waited until the plugin was killed) and classifies the one test.
        let flakyStarted = Date()
        let flaky = try swiftPackage(["--allow-writing-to-package-directory", "testscope", "flaky", "--runs", "2",
                                      "--output", "report-flaky", "--format", "json"])
        print("plugin flaky took \(Int(Date().timeIntervalSince(flakyStarted))) s")
        XCTAssertEqual(flaky.status, 0, flaky.stdout)
        let flakyJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: Self.consumer.appendingPathComponent("report-flaky/flaky.json"))) as? [String: Any])
        let classified = try XCTUnwrap(flakyJSON["tests"] as? [[String: Any]]).map { "\($0["id"] ?? "") \($0["classification"] ?? "")" }
        XCTAssertEqual(classified, ["GreeterTests.GreeterTests/testGreet stable"], flaky.stdout)
        XCTAssertTrue(flaky.stdout.contains("building the tests with Testscope's entry point in .build/plugins/TestscopePlugin/outputs/build\n"),
                      "flaky builds where run built: \(flaky.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: Self.consumer.appendingPathComponent(".build/testscope").path))
    }
}
