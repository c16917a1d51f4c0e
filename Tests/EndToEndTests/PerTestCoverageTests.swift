import Foundation
import XCTest

/// `run --per-test-coverage` and `report --tests-for` / `--covered-by` on the fixture packages: real
/// builds with Testscope's entry point, real test processes.
final class PerTestCoverageTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestscopeProcess.temporaryDirectory("pertest") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func package(_ name: String) -> URL { TestscopeProcess.samples.appendingPathComponent("packages/\(name)") }

    /// `coverage.json`'s per-line counts: path → line → count.
    func lineCounts(_ output: URL) throws -> [String: [Int: Int]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("coverage.json"))) as? [String: Any]
        var counts: [String: [Int: Int]] = [:]
        for file in try XCTUnwrap(object?["files"] as? [[String: Any]]) {
            let path = try XCTUnwrap(file["path"] as? String)
            for line in try XCTUnwrap(file["lines"] as? [[String: Any]]) {
                counts[path, default: [:]][try XCTUnwrap(line["line"] as? Int)] = line["count"] as? Int ?? -1
            }
        }
        return counts
    }

    struct PerTest {
        var contexts: [(id: String, testCase: Int?)]
        var lost: [String]
        /// path → context → lines
        var lines: [String: [Int: Set<Int>]]
        /// path → context → line → how often the context ran it
        var counts: [String: [Int: [Int: UInt64]]]
    }

    func perTest(_ output: URL) throws -> PerTest {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("per-test.json"))) as? [String: Any])
        XCTAssertEqual(object["version"] as? Int, 1)
        let contexts = try XCTUnwrap(object["contexts"] as? [[String: Any]]).map { ($0["id"] as? String ?? "?", $0["case"] as? Int) }
        var lines: [String: [Int: Set<Int>]] = [:]
        var counts: [String: [Int: [Int: UInt64]]] = [:]
        for file in try XCTUnwrap(object["files"] as? [[String: Any]]) {
            let path = try XCTUnwrap(file["path"] as? String)
            lines[path] = [:]
            for run in try XCTUnwrap(file["runs"] as? [[String: Any]]) {
                let context = try XCTUnwrap(run["context"] as? Int)
                let text = try XCTUnwrap(run["lines"] as? String)
                lines[path]![context] = Self.lines(text)
                // `counts`: one per line of `lines`, in line order.
                let numbers = try XCTUnwrap(run["counts"] as? String).split(separator: ",").compactMap { UInt64($0) }
                let ordered = Self.lines(text).sorted()
                XCTAssertEqual(numbers.count, ordered.count, "\(path) context \(context)")
                counts[path, default: [:]][context] = Dictionary(uniqueKeysWithValues: zip(ordered, numbers))
            }
        }
        return PerTest(contexts: contexts, lost: object["lost"] as? [String] ?? ["?"], lines: lines, counts: counts)
    }

    static func lines(_ ranges: String) -> Set<Int> {
        var set = Set<Int>()
        for part in ranges.split(separator: ",") {
            let bounds = part.split(separator: "-").compactMap { Int($0) }
            set.formUnion(bounds[0]...(bounds.count == 2 ? bounds[1] : bounds[0]))
        }
        return set
    }

    func testPerTestRunKeepsTheAggregateAndAnswersWhichTestsRanALine() throws {
        let shapes = package("Shapes")
        let plain = folder.appendingPathComponent("plain"), perTestOutput = folder.appendingPathComponent("per-test")
        let normal = try TestscopeProcess.sharedRun(["run", "--package-path", shapes.path, "--format", "json,html"], output: plain)
        XCTAssertEqual(normal.status, 0, normal.stderr)
        let run = try TestscopeProcess.sharedRun(["run", "--per-test-coverage", "--package-path", shapes.path, "--format", "json,html"], output: perTestOutput)
        XCTAssertEqual(run.status, 0, run.stderr)
        // One build: the per-test run neither compiles nor plans again what the plain run built.
        let log = try String(contentsOf: perTestOutput.appendingPathComponent("swift-test.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("Build complete!"), log)
        XCTAssertFalse(log.contains("Planning build") || log.contains("Compiling"), log)
        // The file pages' lazily loaded data, and the pages that load it.
        let script = try String(contentsOf: perTestOutput.appendingPathComponent("files/Sources.Shapes.Shape.swift.tests.js"), encoding: .utf8)
        XCTAssertTrue(script.hasPrefix("testscopePerTest({"), script)
        XCTAssertTrue(script.contains("ShapesTests.ShapesTests/testLargest"), script)
        let legacy = try String(contentsOf: perTestOutput.appendingPathComponent("files/Sources.Shapes.Legacy.swift.tests.js"), encoding: .utf8)
        XCTAssertTrue(legacy.contains(#""lines":{}"#), "no test ran Legacy.swift: \(legacy)")
        let page = try String(contentsOf: perTestOutput.appendingPathComponent("files/Sources.Shapes.Shape.swift.html"), encoding: .utf8)
        XCTAssertTrue(page.contains(#"data-per-test="1""#))
        XCTAssertTrue(run.stdout.contains("passed, 0 failed"), run.stdout)

        // The aggregate: every line's count equals the normal run's.
        let expected = try lineCounts(plain), actual = try lineCounts(perTestOutput)
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(actual, expected)

        // Every test of the run has its context; the union of all contexts is exactly the covered lines.
        let data = try perTest(perTestOutput)
        XCTAssertEqual(data.contexts.first?.id, "", "context 0 is outside tests")
        XCTAssertEqual(data.lost, [])
        let listed = try String(contentsOf: perTestOutput.appendingPathComponent("test-list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(data.contexts.dropFirst().map(\.id)), Set(listed))
        XCTAssertEqual(data.contexts.filter { $0.id == "ShapesTests.rectSquares(side:)" }.compactMap(\.testCase), [1, 2],
                       "each case of the parameterized test is a context")
        for (path, counts) in expected {
            let covered = Set(counts.filter { $0.value > 0 }.keys)
            let union = (data.lines[path] ?? [:]).values.reduce(into: Set<Int>()) { $0.formUnion($1) }
            XCTAssertEqual(union, covered, path)
        }
        // Each context's counts against the aggregate's: every count is at least 1; a line run by one context
        // alone has the aggregate's count; otherwise the aggregate lies between the largest and the sum.
        var soleLines = 0
        for (path, aggregate) in expected {
            for (line, total) in aggregate where total > 0 {
                let perContext = (data.counts[path] ?? [:]).values.compactMap { $0[line] }
                XCTAssertFalse(perContext.isEmpty, "\(path):\(line)")
                XCTAssertTrue(perContext.allSatisfy { $0 >= 1 }, "\(path):\(line) \(perContext)")
                if perContext.count == 1 {
                    XCTAssertEqual(perContext[0], UInt64(total), "\(path):\(line)")
                    soleLines += 1
                } else {
                    XCTAssertLessThanOrEqual(perContext.max()!, UInt64(total), "\(path):\(line)")
                    XCTAssertGreaterThanOrEqual(perContext.reduce(0, +), UInt64(total), "\(path):\(line)")
                }
            }
        }
        XCTAssertGreaterThan(soleLines, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: perTestOutput.appendingPathComponent("per-test-work").path),
                       "no per-test profile is kept")

        // --tests-for: exactly the contexts whose lines hold the line, as `swift test list` ids.
        let shape = "Sources/Shapes/Shape.swift"
        let fileLines = try XCTUnwrap(data.lines[shape])
        let line = try XCTUnwrap(fileLines.values.reduce(into: Set<Int>()) { $0.formUnion($1) }.min())
        let expectedTests = Set(fileLines.filter { $0.key > 0 && $0.value.contains(line) }.map { data.contexts[$0.key].id })
        XCTAssertFalse(expectedTests.isEmpty)
        let testsFor = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", perTestOutput.path, "--tests-for", "\(shape):\(line)"])
        XCTAssertEqual(testsFor.status, 0, testsFor.stderr)
        let printed = testsFor.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(Set(printed), expectedTests)
        XCTAssertEqual(printed.count, expectedTests.count, "each test once")
        XCTAssertTrue(Set(printed).isSubset(of: Set(listed)))

        // --covered-by: one PATH:RANGES line per file the test ran, the same lines as per-test.json.
        let test = "ShapesTests.ShapesTests/testLargest"
        let number = try XCTUnwrap(data.contexts.firstIndex { $0.id == test })
        let coveredBy = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", perTestOutput.path, "--covered-by", test])
        XCTAssertEqual(coveredBy.status, 0, coveredBy.stderr)
        var printedLines: [String: Set<Int>] = [:]
        for row in coveredBy.stdout.split(separator: "\n") {
            let parts = row.split(separator: ":", maxSplits: 1).map(String.init)
            XCTAssertEqual(parts.count, 2, String(row))
            printedLines[parts[0]] = Self.lines(parts[1])
        }
        XCTAssertEqual(printedLines, data.lines.compactMapValues { $0[number] })
        XCTAssertFalse(printedLines.isEmpty)

        // Bad input: one line on stderr, the documented status.
        let badLine = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", perTestOutput.path, "--tests-for", "\(shape):99999"])
        XCTAssertEqual(badLine.status, 65)
        XCTAssertEqual(badLine.errorLines.count, 1, badLine.stderr)
        XCTAssertTrue(badLine.stderr.contains("has no line 99999"), badLine.stderr)
        let malformed = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", perTestOutput.path, "--tests-for", shape])
        XCTAssertEqual(malformed.status, 64)
        XCTAssertEqual(malformed.errorLines.count, 1, malformed.stderr)
        let unknownTest = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", perTestOutput.path, "--covered-by", "Nope/test"])
        XCTAssertEqual(unknownTest.status, 65)
        XCTAssertEqual(unknownTest.errorLines.count, 1, unknownTest.stderr)
        let noData = try TestscopeProcess.run(["report", "--package-path", shapes.path, "--output", plain.path, "--tests-for", "\(shape):\(line)"])
        XCTAssertEqual(noData.status, 65)
        XCTAssertEqual(noData.errorLines.count, 1, noData.stderr)
        XCTAssertTrue(noData.stderr.contains("--per-test-coverage"), noData.stderr)
    }

    func testACrashingOrHungTestIsLostAndTheRelaunchGoesOn() throws {
        let crashy = package("Crashy")
        let output = folder.appendingPathComponent("crashy")
        let run = try TestscopeProcess.run(["run", "--per-test-coverage", "--package-path", crashy.path, "--output", output.path, "--format", "json",
                                            "--test-timeout", "3"], environment: ["CRASHY_CRASH": "1", "CRASHY_HANG": "1"])
        XCTAssertEqual(run.status, 1, run.stderr)
        let data = try perTest(output)
        XCTAssertTrue(data.lost.contains("CrashyTests.CrashyXCTests/testB_crashes"), "\(data.lost)")
        XCTAssertTrue(data.lost.contains("CrashyTests.CrashyXCTests/testD_hangsWhenAsked"), "killed for its time limit: \(data.lost)")
        XCTAssertTrue(run.stderr.contains("per-test coverage lost for"), run.stderr)
        let ids = Set(data.contexts.map(\.id))
        XCTAssertTrue(ids.contains("CrashyTests.CrashyXCTests/testA_passes"), "before the crash: \(ids)")
        XCTAssertTrue(ids.contains("CrashyTests.LaterXCTests/testRunsAfterTheCrash"), "in the relaunched process: \(ids)")
        XCTAssertFalse(ids.contains("CrashyTests.CrashyXCTests/testB_crashes"))
    }

    /// An exit test's body runs in a child process of the test binary: what it ran is the exit test's
    /// (hummingbird's `testOverflow()`), not "outside tests", and the counts add up to the aggregate.
    func testWhatAnExitTestsChildProcessRanIsTheExitTests() throws {
        let output = folder.appendingPathComponent("exit-tests")
        let run = try TestscopeProcess.run(["run", "--per-test-coverage", "--package-path", package("ExitTests").path,
                                            "--output", output.path, "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let data = try perTest(output)
        XCTAssertEqual(data.lost, [])
        let file = "Sources/Exits/Exits.swift"
        let lines = try XCTUnwrap(data.lines[file]), counts = try XCTUnwrap(data.counts[file])
        func context(_ id: String) throws -> Int { try XCTUnwrap(data.contexts.firstIndex { $0.id == "ExitsTests.ExitSuite/" + id }, id) }
        // `giveUp()` (lines 19-21) runs only in `givingUpExitsWithAFailure()`'s child.
        XCTAssertEqual(lines[try context("givingUpExitsWithAFailure()")], [19, 20, 21])
        XCTAssertNil(lines[0], "nothing ran outside tests: \(lines[0] ?? [])")
        // The 800-deep input is refused at the 33rd "[": the loop (line 10) ran 65 times, in the child.
        XCTAssertEqual(counts[try context("deepInputExitsCleanly()")]?[10], 65)
        let aggregate = try XCTUnwrap(lineCounts(output)[file])
        for line in lines.values.reduce(Set(), { $0.union($1) }) {
            XCTAssertEqual(counts.values.reduce(UInt64(0)) { $0 + ($1[line] ?? 0) }, UInt64(aggregate[line] ?? -1), "line \(line)")
        }
    }
}
