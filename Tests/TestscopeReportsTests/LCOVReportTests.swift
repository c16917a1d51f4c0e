import Foundation
import XCTest
@testable import TestscopeCoverage
@testable import TestscopeReports

/// `FN`/`FNDA` records as genhtml needs them: one line each, no comma inside a name (the record's
/// separator), every name unique within its file (a `\r\n` is one character: one space).
final class LCOVReportTests: XCTestCase {
    func testFunctionNamesAreOneLineWithoutCommasAndUnique() throws {
        var report = try ReportGoldenTests.report("Shapes")
        let index = try XCTUnwrap(report.files.firstIndex { $0.functions.count >= 5 })
        let names = ["pair(a:b:) -> (Int, Int)", "odd\nname\r\n()", "same()", "same()", "π(x:) -> Int\u{2028}tail"]
        for (i, name) in names.enumerated() { report.files[index].functions[i].name = name }
        let lcov = try LCOVReport().renderString(report)
        let record = lcov.components(separatedBy: "end_of_record\n")[index]
        let fn = record.split(separator: "\n").filter { $0.hasPrefix("FN:") }.map { String($0.split(separator: ",", maxSplits: 1)[1]) }
        let functions = report.files[index].functions
        XCTAssertEqual(Array(fn.prefix(5)), ["pair(a:b:) -> (Int; Int)", "odd name ()", "same()", "same() [line \(functions[3].line)]",
                                             "π(x:) -> Int tail"])
        XCTAssertEqual(Set(fn).count, fn.count, "unique within the file")
        let fnda = record.split(separator: "\n").filter { $0.hasPrefix("FNDA:") }
        XCTAssertEqual(fnda.count, fn.count)
        XCTAssertEqual(fnda.first.map(String.init), "FNDA:\(functions[0].count),pair(a:b:) -> (Int; Int)")
    }
}
