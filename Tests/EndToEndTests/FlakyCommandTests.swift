import Foundation
import XCTest
import TestscopeTestSupport

/// `testscope flaky` on the Flaky fixture, through the real binary: a fixed-seed run finds exactly the
/// planted cases, writes valid reports and only into --output, and every reproduction command it prints
/// reproduces the failure; the gate, quarantine, replays, timeouts and bad input.
final class FlakyCommandTests: XCTestCase {
    static let package = TestscopeProcess.samples.appendingPathComponent("packages/Flaky")
    var output: URL!

    override func setUpWithError() throws { output = try TestscopeProcess.temporaryDirectory("flaky") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: output) }

    func flaky(_ arguments: [String], environment: [String: String] = [:]) throws -> TestscopeProcess.Result {
        try TestscopeProcess.run(["flaky", "--package-path", Self.package.path] + arguments, environment: environment)
    }

    func json(_ name: String = "flaky.json") throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent(name))) as? [String: Any])
    }

    /// Runs a printed command with `testscope` meaning the binary under test.
    func shell(_ command: String) throws -> (status: Int32, output: String) {
        let resolved = command.hasPrefix("testscope ") ? TestscopeProcess.executable.path + command.dropFirst("testscope".count) : command
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", resolved + " 2>&1"]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The fixture's files outside the scratch folder (and outside .testscope), with their sizes and dates.
    func fixtureSnapshot() throws -> [String: String] {
        var snapshot: [String: String] = [:]
        let root = Self.package.path
        let enumerator = FileManager.default.enumerator(atPath: root)!
        while let path = enumerator.nextObject() as? String {
            let top = path.split(separator: "/").first.map(String.init) ?? path
            if top.hasPrefix(".build") || top == ".testscope" || top == ".swiftpm" { enumerator.skipDescendants(); continue }
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + path)
            snapshot[path] = "\(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")"
        }
        return snapshot
    }

    func testFixedSeedRunFindsThePlantedCasesAndItsCommandsReproduceThem() throws {
        let before = try fixtureSnapshot()
        let result = try flaky(["--seed", "7", "--runs", "12", "--jobs", "2", "--output", output.path])
        XCTAssertEqual(result.status, 1, "a test fails in every run\n\(result.stderr)")
        XCTAssertTrue(result.errorLines.contains("testscope: error: 1 test(s) failed in every run: FlakyTests.LegacyTests/testAlwaysFails"), result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("testscope flaky: seed 7, 12 runs, 2 jobs\n"), result.stdout)
        for run in 0..<12 { XCTAssertTrue(result.stdout.contains("run \(run) (\(run + 1)/12)  "), "run \(run) is printed") }
        XCTAssertTrue(result.stdout.contains("\nReplay run K of this seed: testscope flaky --package-path \(Self.package.path) --seed 7 --replay K --runs 12\n"), result.stdout)
        XCTAssertTrue(result.stdout.split(separator: "\n").last?.hasPrefix("HTML report: \(output.appendingPathComponent("flaky.html").path)") ?? false, result.stdout)
        XCTAssertTrue(result.stdout.contains("    polluters: FlakyTests.LocaleTests/testSemicolonLocale, FlakyTests.TSVExportTests/testTabSeparatedExport\n"),
                      "off a terminal, the culprits are whole\n\(result.stdout)")
        XCTAssertEqual(try fixtureSnapshot(), before, "nothing is written into the package but the scratch folder")
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.package.appendingPathComponent(".build/testscope").path), "the build run uses")

        let report = try json()
        XCTAssertEqual(report["seed"] as? Int, 7)
        XCTAssertEqual(report["runs"] as? Int, 12)
        let tests = try XCTUnwrap(report["tests"] as? [[String: Any]])
        let listed = try String(contentsOf: TestscopeProcess.samples.appendingPathComponent("recorded/Flaky/test-list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(tests.compactMap { $0["id"] as? String }), Set(listed), "ids as `swift test list` prints them")
        let expected: [String: String] = [
            "FlakyTests.CacheTests/testA_lookupStartsEmpty": "od-victim", "FlakyTests.FormatterTests/testJoinsWithComma": "od-victim",
            "FlakyTests.RegistryTests/testDefaultHandlerDoubles": "od-victim", "FlakyTests.CounterSuite/countStartsAtZero()": "od-victim",
            "FlakyTests.SessionTests/testProfileOfSignedInUser": "od-brittle", "FlakyTests.NetworkTests/testRetriesWithJitter": "nod",
            "FlakyTests.LegacyTests/testAlwaysFails": "consistent-failure", "FlakyTests.LegacyTests/testSkippedEverywhere": "skipped",
        ]
        var byID: [String: [String: Any]] = [:]
        for test in tests {
            let id = try XCTUnwrap(test["id"] as? String)
            byID[id] = test
            XCTAssertEqual(test["classification"] as? String, expected[id] ?? "stable", id)
        }
        // The final screen leads with the verdict (the counts the JSON has), and the reports' line comes last.
        let stable = tests.filter { $0["classification"] as? String == "stable" }.count
        let screen = result.stdout.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n")
        XCTAssertTrue(screen.hasPrefix("✗ Flaky: 6 flaky tests (5 order-dependent, 1 not), 1 fails in every run, \(stable) stable (12 runs)\n"), screen)
        XCTAssertEqual(byID["FlakyTests.CacheTests/testA_lookupStartsEmpty"]?["polluters"] as? [String], ["FlakyTests.CacheTests/testB_storeKeepsValue"])
        XCTAssertEqual(byID["FlakyTests.CacheTests/testA_lookupStartsEmpty"]?["cleaners"] as? [String], ["FlakyTests.CacheTests/testC_clearEmptiesCache"])
        XCTAssertEqual(Set(byID["FlakyTests.FormatterTests/testJoinsWithComma"]?["polluters"] as? [String] ?? []),
                       ["FlakyTests.LocaleTests/testSemicolonLocale", "FlakyTests.TSVExportTests/testTabSeparatedExport"])
        XCTAssertEqual(byID["FlakyTests.RegistryTests/testDefaultHandlerDoubles"]?["polluters"] as? [String], ["FlakyTests.ShutdownTests/testShutdownRemovesHandlers"])
        XCTAssertEqual(byID["FlakyTests.CounterSuite/countStartsAtZero()"]?["polluters"] as? [String], ["FlakyTests.CounterSuite/incrementsTheCount()"])
        XCTAssertEqual(byID["FlakyTests.SessionTests/testProfileOfSignedInUser"]?["setters"] as? [String], ["FlakyTests.AuthTests/testSignIn"])

        // Every printed reproduction reproduces: Testscope's command and the raw test binary's.
        for (id, test) in byID where expected[id] != nil && expected[id] != "skipped" {
            let command = try XCTUnwrap(test["reproduce"] as? String, id)
            XCTAssertTrue(result.stdout.contains(command), "the table shows \(command)")
            let run = try shell(command)
            XCTAssertEqual(run.status, 1, "\(command)\n\(run.output)")
            let line = try XCTUnwrap(run.output.split(separator: "\n").first { $0.contains(". \(id): ") }, run.output)
            XCTAssertTrue(line.hasSuffix(": failed") || line.hasSuffix(": crashed") || line.contains(": failed ") && !line.contains("failed 0 of"), "\(line)")
            let binary = try XCTUnwrap(test["reproduceBinary"] as? String, id)
            if expected[id] == "nod" {
                // One raw run of a non-deterministic test fails with probability 1/2: it must fail
                // within 12 runs (a miss has probability 1/4096).
                var failed = false
                for _ in 0..<12 where !failed { failed = try shell(binary).status != 0 }
                XCTAssertTrue(failed, binary)
            } else {
                XCTAssertNotEqual(try shell(binary).status, 0, binary)
            }
        }
        XCTAssertNil(byID["FlakyTests.MathTests/testAdds"]?["reproduce"] as? String)

        // JUnit: valid against Jenkins' schema, flaky failures marked.
        let junit = try String(contentsOf: output.appendingPathComponent("flaky-junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("<flakyFailure ") && junit.contains("<rerunFailure ") && junit.contains("<flakyError "), "crash → flakyError")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"), "xmllint is required (libxml2-utils)")
        for schema in ConsumerSchemas.flakyJUnit {
            let check = try shell("/usr/bin/xmllint --noout --schema '\(schema.path)' '\(output.appendingPathComponent("flaky-junit.xml").path)'")
            XCTAssertEqual(check.status, 0, "\(schema.lastPathComponent): \(check.output)")
        }
        let html = try String(contentsOf: output.appendingPathComponent("flaky.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("FlakyTests.CacheTests/testA_lookupStartsEmpty") && html.contains("data-section=\"matrix\""))
        XCTAssertTrue(result.stdout.contains("HTML report: \(output.appendingPathComponent("flaky.html").path)"))
    }

    func testGateQuarantineAndFlakyExitStatus() throws {
        let base = ["--filter", "CacheTests", "--seed", "1", "--runs", "3", "--output", output.path]
        let warned = try flaky(base)
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("testscope: warning: 1 flaky test(s): FlakyTests.CacheTests/testA_lookupStartsEmpty (od-victim)"), warned.stderr)
        let gated = try flaky(base + ["--fail-on-flaky"])
        XCTAssertEqual(gated.status, 3, gated.stderr)
        XCTAssertTrue(gated.errorLines.contains("testscope: error: 1 flaky test(s): FlakyTests.CacheTests/testA_lookupStartsEmpty (od-victim) (--fail-on-flaky)"), gated.stderr)
        let quarantine = output.appendingPathComponent("quarantine.txt")
        try "# known flaky\nFlakyTests.CacheTests/testA_lookupStartsEmpty\n".write(to: quarantine, atomically: true, encoding: .utf8)
        let quarantined = try flaky(base + ["--fail-on-flaky", "--quarantine", quarantine.path])
        XCTAssertEqual(quarantined.status, 0, quarantined.stderr)
        XCTAssertTrue(quarantined.stdout.contains("od-victim (quarantined)"), quarantined.stdout)
        let test = (try json()["tests"] as? [[String: Any]])?.first { $0["id"] as? String == "FlakyTests.CacheTests/testA_lookupStartsEmpty" }
        XCTAssertEqual(test?["quarantined"] as? Bool, true)
        XCTAssertEqual(test?["classification"] as? String, "od-victim", "still run and reported")
    }

    func testReplayAndOrderFileRunExactlyOneOrder() throws {
        let replay = try flaky(["--seed", "7", "--runs", "12", "--replay", "1", "--filter", "CacheTests"])
        XCTAssertEqual(replay.status, 1, replay.stderr)
        XCTAssertTrue(replay.stdout.hasPrefix("Replaying run 1 of seed 7: reverse of run 0, stress\n"), "run 1 takes the second mode, as in detection\n" + replay.stdout)
        XCTAssertTrue(replay.stdout.contains("""
            1. FlakyTests.CacheTests/testC_clearEmptiesCache: passed
            2. FlakyTests.CacheTests/testB_storeKeepsValue: passed
            3. FlakyTests.CacheTests/testA_lookupStartsEmpty: failed
            """), replay.stdout)
        let file = output.appendingPathComponent("order.txt")
        try "FlakyTests.AuthTests/testSignIn\nFlakyTests.SessionTests/testProfileOfSignedInUser\n".write(to: file, atomically: true, encoding: .utf8)
        let passing = try flaky(["--order-file", file.path])
        XCTAssertEqual(passing.status, 0, passing.stdout + passing.stderr)
        XCTAssertTrue(passing.stdout.contains("2. FlakyTests.SessionTests/testProfileOfSignedInUser: passed"), passing.stdout)
    }

    /// The ExitTests fixture: Swift Testing exit tests are stable, not "failed in every run", and every
    /// test runs in every run; a reproduction command whose tests did not run says so and exits 1.
    func testExitTestsAreStableAndAReproductionThatRanNothingFails() throws {
        let package = TestscopeProcess.samples.appendingPathComponent("packages/ExitTests").path
        let detect = try TestscopeProcess.run(["flaky", "--package-path", package, "--runs", "4", "--seed", "3", "--jobs", "2",
                                               "--output", output.path])
        XCTAssertEqual(detect.status, 0, detect.stdout + detect.stderr)
        XCTAssertTrue(detect.stdout.contains("no flaky or failing tests, 7 stable (4 runs)"), detect.stdout)
        let tests = try XCTUnwrap(try json()["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.count, 7)
        for test in tests { XCTAssertEqual(test["outcomes"] as? [String], Array(repeating: "passed", count: 4), "\(test["id"] ?? "?")") }
        let exitTest = "ExitsTests.ExitSuite/deepInputExitsCleanly()"
        let reproduce = try TestscopeProcess.run(["flaky", "--package-path", package, "--order", exitTest, "--output", output.path])
        XCTAssertEqual(reproduce.status, 0, reproduce.stderr)
        XCTAssertTrue(reproduce.stdout.contains("1. \(exitTest): passed"), reproduce.stdout)
        // The class's setUp ends the process before any test reports: nothing ran, nothing was reproduced.
        let nothing = try TestscopeProcess.run(["flaky", "--package-path", package, "--order", "ExitsTests.QuittingXCTests/testRunsBeforeTheProcessEnds,"
                                                + exitTest, "--output", output.path], environment: ["EXITS_QUIT": "setUp"])
        XCTAssertEqual(nothing.status, 1, nothing.stdout + nothing.stderr)
        XCTAssertTrue(nothing.stdout.contains("2. \(exitTest): not-run"), nothing.stdout)
        XCTAssertTrue(nothing.errorLines.contains("testscope: warning: 2 test(s) of the order did not run (first: "
            + "ExitsTests.QuittingXCTests/testRunsBeforeTheProcessEnds); nothing was reproduced for them"), nothing.stderr)
    }

    func testAHangIsKilledAfterTheTestTimeout() throws {
        let result = try flaky(["--filter", "ShutdownTests", "--runs", "2", "--seed", "1", "--test-timeout", "1", "--output", output.path, "--quiet"],
                               environment: ["FLAKY_HANG": "1"])
        XCTAssertEqual(result.status, 1, result.stderr)
        // --quiet: the seed (needed to replay) but no per-run progress lines.
        XCTAssertTrue(result.stdout.hasPrefix("testscope flaky: seed 1, 2 runs, "), result.stdout)
        XCTAssertFalse(result.stdout.contains("run 0 (1/2)"), result.stdout)
        let tests = try XCTUnwrap(try json()["tests"] as? [[String: Any]])
        let hung = try XCTUnwrap(tests.first { $0["id"] as? String == "FlakyTests.ShutdownTests/testWaitsForShutdown" })
        XCTAssertEqual(hung["classification"] as? String, "consistent-failure")
        XCTAssertEqual(hung["outcomes"] as? [String], ["timed-out", "timed-out"])
        XCTAssertEqual(tests.first { $0["id"] as? String == "FlakyTests.ShutdownTests/testShutdownRemovesHandlers" }?["classification"] as? String, "stable",
                       "the rest of the order ran in a new process")
    }

    func testBadInputIsOneErrorLineAndTheDocumentedStatus() throws {
        let missing = output.appendingPathComponent("missing-order.txt").path
        let cases: [(arguments: [String], status: Int32, mentions: String)] = [
            (["--seed", "abc"], 64, "--seed takes an integer from 0 to 9007199254740991, not 'abc'"),
            (["--seed=-5"], 64, "not '-5'"),
            (["--seed", "1e3"], 64, "not '1e3'"),
            (["--seed", "7", "--replay", "10"], 64, "--replay 10 is not a run of this plan: --runs 10 has runs 0 to 9"),
            (["--order-file", missing], 65, "cannot read the order file \(missing)"),
            (["--quarantine", missing], 65, "cannot read the quarantine file \(missing)"),
            (["--order", "FlakyTests.Nope/testNothing"], 65, "'FlakyTests.Nope/testNothing' is not a test of this package"),
            (["--order", "FlakyTests.MathTests/testAdds", "--verify-fixes"], 64, "--verify-fixes verifies the fixes a detection proposes"),
        ]
        for (arguments, status, mentions) in cases {
            let result = try flaky(arguments + ["--output", output.path])
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            let errors = result.errorLines.filter { $0.hasPrefix("testscope: error:") }
            XCTAssertEqual(errors.count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(errors.first?.contains(mentions) == true, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Fatal error"), "\(arguments)")
        }
    }
}
