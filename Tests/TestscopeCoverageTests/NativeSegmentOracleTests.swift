import Foundation
import XCTest
@testable import TestscopeCoverage

/// The differential oracle for `getCoverageForFile` + `SegmentBuilder` + the file summaries: the
/// recorded exports' function regions (counts already evaluated by llvm-cov) must give back exactly
/// the recorded `files[]`: names, order, every segment and every summary.
final class NativeSegmentOracleTests: XCTestCase {
    static let samples = ["Shapes", "Inventory", "Hostile", "Crashy"]

    func testSegmentsFilesAndSummariesEqualTheRecordedExports() throws {
        for sample in Self.samples {
            let functions = try Self.countedFunctions(sample)
            let exported = try Self.exportFiles(sample)
            let expectedSegments = try RecordedSamples.segments(sample)

            let files = NativeFileCoverage.files(functions)
            XCTAssertEqual(files.map(\.filename), exported.map { $0["filename"] as? String ?? "" }, sample)
            XCTAssertEqual(files.count, expectedSegments.count, sample)
            var segmentCount = 0
            for file in files {
                let expected = try XCTUnwrap(expectedSegments[file.filename], "\(sample) \(file.filename)")
                XCTAssertEqual(file.segments, expected, "\(sample) \(file.filename)")
                segmentCount += expected.count
            }
            XCTAssertGreaterThan(segmentCount, 50, sample)

            let summaries = NativeSummaries.fileSummaries(functions)
            XCTAssertEqual(summaries.map(\.filename), files.map(\.filename), sample)
            for ((filename, summary), file) in zip(summaries, exported) {
                let expected = try XCTUnwrap(file["summary"] as? [String: Any])
                Self.assertTally(summary.lines, expected["lines"], "\(sample) \(filename) lines")
                Self.assertTally(summary.functions, expected["functions"], "\(sample) \(filename) functions")
                Self.assertTally(summary.instantiations, expected["instantiations"], "\(sample) \(filename) instantiations")
                Self.assertTally(summary.regions, expected["regions"], "\(sample) \(filename) regions")
                Self.assertTally(summary.branches, expected["branches"], "\(sample) \(filename) branches")
            }
            let totals = try XCTUnwrap(try Self.exportData(sample)["totals"] as? [String: Any])
            let mine = NativeSummaries.totals(summaries)
            Self.assertTally(mine.lines, totals["lines"], "\(sample) totals lines")
            Self.assertTally(mine.functions, totals["functions"], "\(sample) totals functions")
            Self.assertTally(mine.instantiations, totals["instantiations"], "\(sample) totals instantiations")
            Self.assertTally(mine.regions, totals["regions"], "\(sample) totals regions")
        }
    }

    /// Reading a record into `CountedFunction` and printing it back is lossless for export data.
    func testCountedFunctionsRoundTripToExportFunctions() throws {
        for sample in Self.samples {
            var functions: [ExportFunction] = []
            _ = try LLVMCovExportReader(onFile: { _ in }, onFunction: { functions.append($0) })
                .read(RecordedSamples.file(sample, "coverage.json"))
            for function in functions {
                let back = CountedFunction(function).exportFunction
                XCTAssertEqual(back.name, function.name)
                XCTAssertEqual(back.count, function.count)
                XCTAssertEqual(back.regions, function.regions)
                XCTAssertEqual(back.filenames, function.filenames)
            }
        }
    }

    /// Timing: every recorded sample, files and summaries, several rounds.
    func testBuildingAllRecordedSamplesIsFast() throws {
        let all = try Self.samples.map(Self.countedFunctions)
        let clock = ContinuousClock()
        let rounds = 20
        let files = clock.measure {
            for _ in 0..<rounds { for functions in all { _ = NativeFileCoverage.files(functions) } }
        }
        let summaries = clock.measure {
            for _ in 0..<rounds { for functions in all { _ = NativeSummaries.fileSummaries(functions) } }
        }
        let regions = all.joined().map(\.regions.count).reduce(0, +)
        print("native coverage of all 4 recorded samples (\(regions) regions) per round: files \(files / rounds), summaries \(summaries / rounds)")
    }

    // MARK: - Reading the export

    static func countedFunctions(_ sample: String) throws -> [CountedFunction] {
        var functions: [CountedFunction] = []
        _ = try LLVMCovExportReader(onFile: { _ in }, onFunction: { functions.append(CountedFunction($0)) })
            .read(RecordedSamples.file(sample, "coverage.json"))
        return functions
    }

    static func exportData(_ sample: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: RecordedSamples.file(sample, "coverage.json")))
        let data = try XCTUnwrap((object as? [String: Any])?["data"] as? [[String: Any]])
        return try XCTUnwrap(data.first)
    }

    static func exportFiles(_ sample: String) throws -> [[String: Any]] {
        try XCTUnwrap(try exportData(sample)["files"] as? [[String: Any]])
    }

    static func assertTally(_ tally: CoverageRatio, _ expected: Any?, _ message: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        guard let expected = expected as? [String: Any],
              let count = (expected["count"] as? NSNumber)?.intValue,
              let covered = (expected["covered"] as? NSNumber)?.intValue,
              let percent = (expected["percent"] as? NSNumber)?.doubleValue else {
            return XCTFail("\(message): no summary in the export", file: file, line: line)
        }
        XCTAssertEqual(tally.total, count, message, file: file, line: line)
        XCTAssertEqual(tally.covered, covered, message, file: file, line: line)
        XCTAssertEqual(tally.llvmPercent, percent, accuracy: 1e-9, message, file: file, line: line)
    }
}
