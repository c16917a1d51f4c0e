import Foundation
import XCTest

/// Real runs: test times in every report are wall times (the Durations fixture's tests sleep known
/// amounts in parallel), and `report` on a run's own artifacts gives the run's results (Crashy, with
/// a crash that makes `run` relaunch the test binary).
final class TestTimingTests: XCTestCase {
    static func tests(_ output: URL) throws -> (json: [String: Any], tests: [[String: Any]]) {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("tests.json"))) as? [String: Any])
        return (json, try XCTUnwrap(json["tests"] as? [[String: Any]]))
    }

    /// `time="…"` of every `<testsuites>` and `<testsuite>` element, in order.
    static func junitTimes(_ output: URL, element: String) throws -> [Double] {
        let xml = try String(contentsOf: output.appendingPathComponent("junit.xml"), encoding: .utf8)
        return xml.components(separatedBy: "<\(element) ").dropFirst().compactMap { part in
            let head = part.prefix { $0 != ">" }
            guard let r = head.range(of: #" time="[0-9.]+""#, options: .regularExpression) else { return nil }
            return Double(head[r].dropFirst(7).dropLast())
        }
    }

    func testParallelRunReportsEachTestsOwnTimeAndWallTimeForSuitesAndTheRun() throws {
        let output = try TestscopeProcess.temporaryDirectory("durations")
        defer { try? FileManager.default.removeItem(at: output) }
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Durations")
        let result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--format", "text,json,junit,html"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let (json, tests) = try Self.tests(output)
        // The Swift Testing tests that wait ran in parallel: each one's own time is about its sleep.
        var sum = 0.0
        for test in tests where test["suite"] as? String == "Waiting" {
            let name = (test["name"] as? String ?? "") + ((test["arguments"] as? String).map { " " + $0 } ?? "")
            let digits = try XCTUnwrap(name.range(of: #"[0-9]+(ms)?$|[0-9]+ms"#, options: .regularExpression).map { name[$0] })
            let slept = try XCTUnwrap(Double(digits.replacingOccurrences(of: "ms", with: ""))) / 1000
            let duration = try XCTUnwrap(test["duration"] as? Double, name)
            XCTAssertGreaterThanOrEqual(duration, slept - 0.001, name)
            XCTAssertLessThan(duration, slept + 0.5, name)
            sum += duration
        }
        XCTAssertGreaterThan(sum, 2.7 - 0.01, "0.3 + 0.6 + 1.2 + 0.1 + 0.5 s of sleeps")
        // The run's time is wall time: less than the sum, at least the longest sleep plus the XCTest test.
        let wall = try XCTUnwrap(json["wallTime"] as? Double)
        XCTAssertGreaterThanOrEqual(wall, 1.2 + 0.3)
        XCTAssertLessThan(wall, sum + 0.3)
        let root = try XCTUnwrap(try Self.junitTimes(output, element: "testsuites").first)
        XCTAssertEqual(root, wall, accuracy: 0.0005)
        let suites = try Self.junitTimes(output, element: "testsuite")
        XCTAssertEqual(suites.count, 3, "SerialXCTests, Blocking (skipped), Waiting")
        for time in suites { XCTAssertLessThanOrEqual(time, root) }
        XCTAssertLessThan(try XCTUnwrap(suites.max()), sum)
        XCTAssertTrue(result.stdout.contains("Slowest tests: (the tests took \(String(format: "%.3f s", wall)) of wall time"), result.stdout)
        let page = try String(contentsOf: output.appendingPathComponent("tests.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("Wall time") && page.contains(String(format: "%.3f s", wall)))
    }

    func testNoParallelGivesBlockingTestsTheirOwnTime() throws {
        let output = try TestscopeProcess.temporaryDirectory("durations-serial")
        defer { try? FileManager.default.removeItem(at: output) }
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Durations")
        let result = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--format", "json", "--", "--no-parallel"],
                                              environment: ["DURATIONS_BLOCK": "1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let tests = try Self.tests(output).tests.filter { $0["framework"] as? String == "Swift Testing" }
        XCTAssertEqual(tests.count, 8)
        for test in tests where test["arguments"] is NSNull {
            // One at a time: each test's time is its own sleep (in parallel, blocks200ms() took 0.602 s).
            let name = try XCTUnwrap(test["name"] as? String)
            let digits = try XCTUnwrap(name.range(of: #"[0-9]+"#, options: .regularExpression).map { name[$0] })
            let slept = try XCTUnwrap(Double(digits)) / 1000
            let duration = try XCTUnwrap(test["duration"] as? Double, name)
            XCTAssertGreaterThanOrEqual(duration, slept - 0.001, name)
            XCTAssertLessThan(duration, slept + 0.15, name)
        }
        XCTAssertFalse(result.stdout.contains("do not rank the tests"), result.stdout)
    }

    func testReportOfARunsOwnArtifactsGivesTheRunsResults() throws {
        let output = try TestscopeProcess.temporaryDirectory("reimport-run")
        let imported = try TestscopeProcess.temporaryDirectory("reimport-report")
        defer { for folder in [output, imported] { try? FileManager.default.removeItem(at: folder) } }
        let package = TestscopeProcess.samples.appendingPathComponent("packages/Crashy")
        let run = try TestscopeProcess.run(["run", "--package-path", package.path, "--output", output.path, "--format", "json"],
                                           environment: ["CRASHY_CRASH": "1"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let streams = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasPrefix("swift-testing-events") }.sorted()
        // Whether the crash left other tests in flight (then run relaunches: a second stream) depends on
        // thread timing; RunReimportTests checks a recorded run that did, this one whichever happened.
        XCTAssertFalse(streams.isEmpty)

        func outcomes(_ folder: URL) throws -> [String: String] {
            var map: [String: String] = [:]
            for test in try Self.tests(folder).tests {
                let key = "\(test["id"] as? String ?? "?") [\(test["arguments"] as? String ?? "")]"
                XCTAssertNil(map[key], "one result per test and case: \(key)")
                map[key] = test["outcome"] as? String
            }
            return map
        }
        let expected = try outcomes(output)
        XCTAssertEqual(expected.values.filter { $0 == "crashed" }.count, 2, "one XCTest and one Swift Testing test crash")
        // The streams in either order (they are put in the order the processes ran), with the log and the listing.
        for order in [streams, streams.reversed()] {
            var arguments = ["report", "--package-path", package.path, "--output", imported.path, "--format", "json",
                             "--test-log", output.appendingPathComponent("swift-test.log").path,
                             "--test-list", output.appendingPathComponent("test-list.txt").path]
            for stream in order { arguments += ["--event-stream", output.appendingPathComponent(stream).path] }
            let report = try TestscopeProcess.run(arguments)
            XCTAssertEqual(report.status, 1, report.stderr)
            XCTAssertEqual(try outcomes(imported), expected, "order \(order)")
            func summary(_ folder: URL) throws -> [String: Int] {
                ((try Self.tests(folder).json["summary"] as? [String: Int]) ?? [:]).filter { $0.key != "relaunches" }
            }
            XCTAssertEqual(try summary(imported), try summary(output))
        }
        // The streams alone: the same Swift Testing outcomes (the last test left in flight crashed).
        let streamsOnly = try TestscopeProcess.run(["report", "--package-path", package.path, "--output", imported.path, "--format", "json"]
                                                   + streams.flatMap { ["--event-stream", output.appendingPathComponent($0).path] })
        XCTAssertEqual(streamsOnly.status, 1, streamsOnly.stderr)
        XCTAssertEqual(try outcomes(imported), expected.filter { $0.key.contains("(") })
    }

    func testAnEventStreamWithNothingUsableIsBadInputInOneLine() throws {
        let folder = try TestscopeProcess.temporaryDirectory("bad-stream")
        defer { try? FileManager.default.removeItem(at: folder) }
        let junk = folder.appendingPathComponent("events.jsonl")
        try "{\"kind\":\"event\",\"payload\":{\"kind\":\"testStarted\"\nnot json\n".write(to: junk, atomically: true, encoding: .utf8)
        let result = try TestscopeProcess.run(["report", "--event-stream", junk.path, "--output", folder.appendingPathComponent("out").path])
        XCTAssertEqual(result.status, 65)
        XCTAssertEqual(result.errorLines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(junk.path) is not a Swift Testing event stream (line 1: not JSON)"), result.stderr)
    }
}
