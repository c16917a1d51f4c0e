@testable import TestscopeCoverage
import XCTest

/// The compact line table reads back exactly what went in, huge counts and partial spans included.
final class LineTableTests: XCTestCase {
    let lines: [LineCoverage] = [
        LineCoverage(line: 3, count: 0),
        LineCoverage(line: 4, count: 7, uncoveredSpans: [ColumnSpan(start: 5, end: 9, count: 0), ColumnSpan(start: 12, end: nil, count: 0)]),
        LineCoverage(line: 5, count: UInt64(UInt32.max) - 1),
        LineCoverage(line: 6, count: UInt64(UInt32.max)),
        LineCoverage(line: 9, count: UInt64.max, uncoveredSpans: [ColumnSpan(start: 1, end: 2, count: 0)]),
        LineCoverage(line: 10, count: 1 << 40),
        LineCoverage(line: 11, count: 1),
    ]

    func testReadsBackWhatWentIn() {
        let table = LineTable(lines)
        XCTAssertEqual(Array(table), lines, "iteration")
        XCTAssertEqual(table.indices.map { table[$0] }, lines, "subscript")
        XCTAssertEqual(table.indices.map { table.count(at: $0) }, lines.map(\.count))
        XCTAssertEqual(table.indices.map { table.lineNumber(at: $0) }, lines.map(\.line))
        XCTAssertEqual(table.filter(\.isPartial).map(\.line), [4, 9])
        XCTAssertEqual(table.last?.line, 11)
    }

    func testRemovingLinesKeepsTheRestAndTheirSpans() {
        let kept = LineTable(lines).removing([4, 6])
        XCTAssertEqual(Array(kept), lines.filter { $0.line != 4 && $0.line != 6 })
        XCTAssertEqual(kept, LineTable(lines.filter { $0.line != 4 && $0.line != 6 }))
        XCTAssertNotEqual(kept, LineTable(lines))
    }

    func testAnArrayLiteralAndAnEmptyTable() {
        let table: LineTable = [LineCoverage(line: 1, count: 2)]
        XCTAssertEqual(table.count, 1)
        XCTAssertTrue(LineTable().isEmpty)
        XCTAssertNil(LineTable().last)
    }
}
