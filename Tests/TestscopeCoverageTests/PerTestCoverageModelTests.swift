import TestscopeCoverage
import XCTest

/// `per-test.json`'s model: context ids, ranges, and the two questions it answers.
final class PerTestCoverageModelTests: XCTestCase {
    func testContextIDsAreSwiftTestListIDs() {
        XCTAssertEqual(PerTestBuilder.context(of: "Mod.Class/testA"), .init(id: "Mod.Class/testA"))
        XCTAssertEqual(PerTestBuilder.context(of: "Mod.Suite/check()/Checks.swift:12:5"), .init(id: "Mod.Suite/check()"))
        XCTAssertEqual(PerTestBuilder.context(of: "Mod.doubles(value:)/T.swift:3:2\t2"), .init(id: "Mod.doubles(value:)", testCase: 2))
        XCTAssertEqual(PerTestBuilder.context(of: ""), .init(id: PerTestCoverage.outsideTests))
    }

    func testRangesRoundTrip() {
        let lines: Set<UInt32> = [3, 4, 5, 9, 11, 12]
        let ranges = PerTestCoverage.ranges(of: lines)
        XCTAssertEqual(ranges, [3...5, 9...9, 11...12])
        XCTAssertEqual(PerTestCoverage.text(ranges), "3-5,9,11-12")
        XCTAssertEqual(PerTestCoverage.ranges("3-5,9,11-12"), ranges)
        XCTAssertEqual(PerTestCoverage.ranges("x,7-2,4"), [4...4], "malformed parts are skipped")
    }

    func testQuestions() throws {
        let data = PerTestCoverage(
            contexts: [.init(id: ""), .init(id: "M.A/testOne"), .init(id: "M.two(x:)", testCase: 1), .init(id: "M.two(x:)", testCase: 2)],
            lost: [],
            files: [.init(path: "Sources/M/F.swift", lastLine: 40, runs: [.init(context: 0, lines: "1-3"), .init(context: 1, lines: "5-9"),
                                                                          .init(context: 2, lines: "8-10"), .init(context: 3, lines: "8,20")]),
                    .init(path: "Sources/M/G.swift", lastLine: 5, runs: [.init(context: 3, lines: "2")])])
        let f = try XCTUnwrap(data.file(matching: "M/F.swift"))
        XCTAssertEqual(data.tests(running: 8, in: f), ["M.A/testOne", "M.two(x:)"], "each test once, cases merged")
        XCTAssertEqual(data.tests(running: 2, in: f), [], "outside tests is not a test")
        XCTAssertNil(data.file(matching: "F.swif"))
        let covered = data.lines(coveredBy: "M.two(x:)")
        XCTAssertEqual(covered.map(\.path), ["Sources/M/F.swift", "Sources/M/G.swift"])
        XCTAssertEqual(covered.map(\.ranges), [[8...10, 20...20], [2...2]])
    }
}
