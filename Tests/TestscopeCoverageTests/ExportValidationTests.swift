import XCTest
@testable import TestscopeCoverage

/// Values an export cannot hold are refused with the record named; out-of-order segments are sorted.
final class ExportValidationTests: XCTestCase {
    func read(_ text: String) throws -> (files: [ExportFile], functions: [ExportFunction]) {
        var files: [ExportFile] = []
        var functions: [ExportFunction] = []
        _ = try LLVMCovExportReader(onFile: { files.append($0) }, onFunction: { functions.append($0) })
            .read(bytes: Array(text.utf8), name: "bad.json")
        return (files, functions)
    }

    /// An export of one file with `segment` as its second segment and `region` as its function's region.
    func export(segment: String = "[2,5,3,true,true,false]", region: String = "[1,1,3,2,3,0,0,0]",
                filenames: String = #"["/p/a.swift"]"#) -> String {
        """
        {"data":[{"files":[{"filename":"/p/a.swift","segments":[[1,1,3,true,true,false],\(segment),[3,2,0,false,false,false]]}],
        "functions":[{"count":3,"filenames":\(filenames),"name":"f","regions":[\(region)]}]}],
        "type":"llvm.coverage.json.export","version":"3.0.1"}
        """
    }

    func assertRefused(_ text: String, record: String, problem: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try read(text), file: file, line: line) { error in
            guard case let CoverageError.invalidExportRecord(path, _, actualRecord, actualProblem) = error else {
                return XCTFail("\(error)", file: file, line: line)
            }
            XCTAssertEqual(path, "bad.json", file: file, line: line)
            XCTAssertEqual(actualRecord, record, file: file, line: line)
            XCTAssertTrue(actualProblem.contains(problem), "\(actualProblem) does not say \(problem)", file: file, line: line)
            let message = error.localizedDescription
            XCTAssertFalse(message.contains("\n"), message, file: file, line: line)
            XCTAssertTrue(message.contains("llvm-cov export"), message, file: file, line: line)
        }
    }

    func testTheTemplateIsValid() throws {
        let (files, functions) = try read(export())
        XCTAssertEqual(files.first?.segments?.count, 3)
        XCTAssertEqual(functions.first?.regions.count, 1)
    }

    func testLineNumbersOutOfRangeAreRefused() {
        let segment = #"segment 2 of file "/p/a.swift""#
        assertRefused(export(segment: "[2000000000,5,3,true,true,false]"), record: segment, problem: "2000000000 is beyond 10000000")
        assertRefused(export(segment: "[9223372036854775808,5,3,true,true,false]"), record: segment, problem: "beyond 10000000")
        assertRefused(export(segment: "[-2,5,3,true,true,false]"), record: segment, problem: "line number is negative")
        assertRefused(export(segment: "[0,5,3,true,true,false]"), record: segment, problem: "line number is 0")
        assertRefused(export(segment: "[2,-5,3,true,true,false]"), record: segment, problem: "column number is negative")
        assertRefused(export(segment: "[2,4294967296,3,true,true,false]"), record: segment, problem: "beyond 2^32")
        assertRefused(export(region: "[1,1,10000001,2,3,0,0,0]"), record: #"region 1 of function "f""#, problem: "beyond 10000000")
    }

    func testTheLimitItselfIsAccepted() throws {
        let (files, _) = try read(export(segment: "[10000000,5,3,true,true,false]").replacingOccurrences(of: "[3,2,0", with: "[10000000,9,0"))
        XCTAssertEqual(files.first?.segments?.map(\.line), [1, 10_000_000, 10_000_000])
    }

    func testCountsThatAreNotUInt64AreRefused() {
        let segment = #"segment 2 of file "/p/a.swift""#
        assertRefused(export(segment: "[2,5,-1,true,true,false]"), record: segment, problem: "count is negative")
        assertRefused(export(segment: "[2,5,18446744073709551616,true,true,false]"), record: segment, problem: "2^64 or more")
        assertRefused(export(segment: "[2,5,1e30,true,true,false]"), record: segment, problem: "not an integer (1e30)")
        assertRefused(export(segment: "[2,5,2.5,true,true,false]"), record: segment, problem: "not an integer (2.5)")
        assertRefused(export(region: "[1,1,3,2,-3,0,0,0]"), record: #"region 1 of function "f""#, problem: "count is negative")
        assertRefused(export(region: "[1,1,3,2,99999999999999999999,0,0,0]"), record: #"region 1 of function "f""#, problem: "2^64 or more")
    }

    func testFileIndexesOutsideTheFunctionAreRefused() {
        assertRefused(export(region: "[1,1,3,2,3,1,0,0]"), record: #"region 1 of function "f""#, problem: "file index 1, but the function has 1 file")
        assertRefused(export(region: "[1,1,3,2,3,0,5,1]"), record: #"region 1 of function "f""#, problem: "file index 5")
        assertRefused(export(region: "[3,2,1,1,3,0,0,0]"), record: #"region 1 of function "f""#, problem: "ends (1:1) before it starts (3:2)")
    }

    func testMisspelledLiteralsAreNotJSON() {
        for text in [export(segment: "[2,5,3,trux,true,false]"), export(segment: "[2,5,3,true,true,fals]")] {
            XCTAssertThrowsError(try read(text)) { error in
                guard case CoverageError.invalidJSON = error else { return XCTFail("\(error)") }
            }
        }
    }

    /// Segments written out of order give the lines of the same segments in order (never a trap).
    func testSegmentsOutOfOrderAreSorted() throws {
        let text = try String(contentsOf: RecordedSamples.file("Shapes", "coverage.json"), encoding: .utf8)
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        var data = object["data"] as! [[String: Any]]
        var files = data[0]["files"] as! [[String: Any]]
        XCTAssertGreaterThan((files[0]["segments"] as! [Any]).count, 3)
        for i in files.indices { files[i]["segments"] = Array((files[i]["segments"] as! [Any]).reversed()) }
        data[0]["files"] = files
        var shuffled = object
        shuffled["data"] = data
        let reversed = String(decoding: try JSONSerialization.data(withJSONObject: shuffled), as: UTF8.self)
        let original = try read(text).files, sorted = try read(reversed).files
        XCTAssertEqual(original.count, sorted.count)
        for (a, b) in zip(original, sorted) {
            XCTAssertEqual(LineCoverageBuilder.lines(from: a.segments!), LineCoverageBuilder.lines(from: b.segments!), a.filename)
        }
    }
}
