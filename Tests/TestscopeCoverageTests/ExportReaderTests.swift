import XCTest
@testable import TestscopeCoverage

/// The export is read by shape, not by version string.
final class ExportReaderTests: XCTestCase {
    func read(_ text: String) throws -> (files: [ExportFile], functions: [ExportFunction], header: ExportHeader) {
        var files: [ExportFile] = []
        var functions: [ExportFunction] = []
        let header = try LLVMCovExportReader(onFile: { files.append($0) }, onFunction: { functions.append($0) })
            .read(bytes: Array(text.utf8), name: "test.json")
        return (files, functions, header)
    }

    func recordedText(_ sample: String = "Shapes") throws -> String {
        try String(contentsOf: RecordedSamples.file(sample, "coverage.json"), encoding: .utf8)
    }

    /// Rewrites every 6-element segment of a real export with `transform` (a textual edit of real data).
    func rewriteSegments(_ text: String, _ transform: (String) -> String) throws -> String {
        let regex = try NSRegularExpression(pattern: #"\[(\d+),(\d+),(\d+),(true|false),(true|false),(true|false)\]"#)
        let ns = text as NSString
        var result = ""
        var last = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            result += ns.substring(with: NSRange(location: last, length: match.range.location - last))
            result += transform(ns.substring(with: match.range))
            last = match.range.location + match.range.length
        }
        return result + ns.substring(from: last)
    }

    func testReadsRecordedExportLikeFoundation() throws {
        let (files, functions, header) = try read(try recordedText())
        XCTAssertEqual(header.type, "llvm.coverage.json.export")
        let reference = try RecordedSamples.exportFunctions("Shapes")
        XCTAssertEqual(functions.count, reference.count)
        for (ours, theirs) in zip(functions, reference) {
            XCTAssertEqual(ours.name, theirs["name"] as? String)
            XCTAssertEqual(ours.count, (theirs["count"] as? NSNumber)?.uint64Value)
            XCTAssertEqual(ours.regions.count, (theirs["regions"] as? [Any])?.count)
        }
        XCTAssertFalse(files.isEmpty)
        XCTAssertTrue(files.allSatisfy { $0.segments != nil })
    }

    func testFiveElementSegmentsGiveTheSameLines() throws {
        let original = try read(try recordedText())
        let fiveElements = try rewriteSegments(try recordedText()) { segment in
            String(segment[..<segment.lastIndex(of: ",")!]) + "]"
        }
        XCTAssertNotEqual(fiveElements, try recordedText())
        let shortened = try read(fiveElements)
        for (a, b) in zip(original.files, shortened.files) {
            XCTAssertEqual(LineCoverageBuilder.lines(from: a.segments!), LineCoverageBuilder.lines(from: b.segments!), a.filename)
        }
    }

    func testUnknownTrailingElementsAreIgnored() throws {
        let original = try read(try recordedText())
        let longer = try rewriteSegments(try recordedText()) { String($0.dropLast()) + ",42,\"future\",[1,2]]" }
        let extended = try read(longer)
        XCTAssertEqual(original.files.map(\.segments), extended.files.map(\.segments))
    }

    func testVersionStringIsNotTrusted() throws {
        let text = try recordedText().replacingOccurrences(of: "\"version\":\"3.0.1\"", with: "\"version\":\"9.9.9\"")
        XCTAssertTrue(text.contains("9.9.9"))
        XCTAssertEqual(try read(text).files.count, try read(try recordedText()).files.count)
    }

    func testSummaryOnlyExportHasNoSegments() throws {
        let text = try String(contentsOf: RecordedSamples.file("Shapes", "coverage-summary-only.json"), encoding: .utf8)
        let (files, _, _) = try read(text)
        XCTAssertFalse(files.isEmpty)
        XCTAssertTrue(files.allSatisfy { $0.segments == nil })
        let root = RecordedSamples.packageRoot("Shapes")
        let options = CoverageBuildOptions(packageRoot: root, layout: .conventional(root: root), filter: SourceFilter(root: "/"))
        XCTAssertThrowsError(try CoverageBuilder(options: options).build(exports: [RecordedSamples.file("Shapes", "coverage-summary-only.json")])) {
            guard case CoverageError.summaryOnlyExport = $0 else { return XCTFail("\($0)") }
        }
    }

    func testBadDocumentsGiveCoverageErrors() {
        let cases: [(String, (CoverageError) -> Bool)] = [
            ("", { if case .emptyExport = $0 { return true }; return false }),
            ("hello", { if case .invalidJSON = $0 { return true }; return false }),
            ("{\"data\":[{\"files\":[{\"filename\":\"a\",\"segments\":[[1,2", { if case .invalidJSON = $0 { return true }; return false }),
            ("{\"type\":\"other\",\"data\":[]}", { if case .notAnExport(_, "other") = $0 { return true }; return false }),
            ("[1,2,3]", { if case .invalidJSON = $0 { return true }; return false }),
            ("{\"data\":[]} trailing", { if case .invalidJSON = $0 { return true }; return false }),
        ]
        for (text, matches) in cases {
            XCTAssertThrowsError(try read(text), text) { error in
                guard let error = error as? CoverageError else { return XCTFail("\(error)") }
                XCTAssertTrue(matches(error), "\(text): \(error)")
                XCTAssertFalse(error.localizedDescription.isEmpty)
            }
        }
    }

    func testCountOfTwoToThe64MinusOneIsKept() throws {
        // llvm-cov prints a counter that went negative (a counter race) as its wrapped 64-bit value.
        let json = """
        {"data":[{"files":[{"filename":"/p/a.swift","segments":[[1,1,18446744073709551615,true,true,false],[4,1,0,false,false,false]]}],
        "functions":[{"name":"f","count":18446744073709551615,"regions":[[1,1,4,1,18446744073709551615,0,0,0]],"filenames":["/p/a.swift"]}]}],
        "type":"llvm.coverage.json.export","version":"3.0.1"}
        """
        let (files, functions, _) = try read(json)
        let lines = LineCoverageBuilder.lines(from: files[0].segments!)
        // Line 4 ends the region: llvm still gives it the wrapped count.
        XCTAssertEqual(lines.map(\.count), [UInt64.max, UInt64.max, UInt64.max, UInt64.max])
        XCTAssertEqual(functions[0].count, UInt64.max)
        XCTAssertEqual(functions[0].regions[0].executionCount, UInt64.max)
    }

    func testEscapedStringsAreDecoded() throws {
        let json = #"{"data":[{"files":[{"filename":"/p/a \"q\"\\b\u00e9\ud83d\ude00.swift","segments":[]}]}],"type":"llvm.coverage.json.export"}"#
        XCTAssertEqual(try read(json).files.first?.filename, "/p/a \"q\"\\bé😀.swift")
    }
}
