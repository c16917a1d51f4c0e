import Foundation
import XCTest
@testable import TestscopeCoverage

/// The differential oracle for `getCoverageForFile` + `SegmentBuilder` + the file summaries: the
/// recorded exports' function regions (counts already evaluated by llvm-cov) must give back exactly
/// the recorded `files[]`: names, order, every segment and every summary.
final class NativeSegmentOracleTests: XCTestCase {
    static let samples = ["Shapes", "Inventory", "Hostile", "Crashy"]

    /// Every full export recorded: `<sample>/coverage*.json` except the summary-only ones.
    static let exports: [(sample: String, file: String)] = {
        let recorded = RecordedSamples.repoRoot.appendingPathComponent("sample-profiles/recorded")
        let samples = ((try? FileManager.default.contentsOfDirectory(atPath: recorded.path)) ?? []).sorted()
        return samples.flatMap { sample in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: recorded.appendingPathComponent(sample).path)) ?? []
            return files.sorted().filter { $0.hasPrefix("coverage") && $0.hasSuffix(".json") && !$0.contains("summary-only") }
                .map { (sample, $0) }
        }
    }()

    func testTheFourSwiftSamplesAreAmongTheOracles() {
        for sample in Self.samples { XCTAssertTrue(Self.exports.contains { $0 == (sample, "coverage.json") }, sample) }
    }

    func testSegmentsFilesAndSummariesEqualTheRecordedExports() throws {
        for (directory, name) in Self.exports {
            let sample = "\(directory)/\(name)"
            let functions = try Self.countedFunctions(sample)
            let exported = try Self.exportFiles(sample)
            var expectedSegments: [String: [ExportSegment]] = [:]
            _ = try LLVMCovExportReader(onFile: { expectedSegments[$0.filename] = $0.segments ?? [] }, onFunction: { _ in })
                .read(Self.url(sample))

            let files = NativeFileCoverage.files(functions)
            XCTAssertEqual(files.map(\.filename), exported.map { $0["filename"] as? String ?? "" }, sample)
            XCTAssertEqual(files.count, expectedSegments.count, sample)
            var segmentCount = 0
            for file in files {
                let expected = try XCTUnwrap(expectedSegments[file.filename], "\(sample) \(file.filename)")
                XCTAssertEqual(file.segments, expected, "\(sample) \(file.filename)")
                segmentCount += expected.count
            }
            XCTAssertGreaterThan(segmentCount, 20, sample)

            let summaries = NativeSummaries.fileSummaries(functions)
            var checked = 0
            // Export's functions[] drop folded branches and do not say which sides were folded, so
            // branch summaries can be rebuilt from an export only when it has no branches at all.
            let functionRecords = try XCTUnwrap(try Self.exportData(sample)["functions"] as? [[String: Any]])
            let hasBranches = functionRecords.contains { !(($0["branches"] as? [Any])?.isEmpty ?? true) }
            XCTAssertEqual(summaries.map(\.filename), files.map(\.filename), sample)
            for ((filename, summary), file) in zip(summaries, exported) {
                let expected = try XCTUnwrap(file["summary"] as? [String: Any])
                Self.assertTally(summary.lines, expected["lines"], "\(sample) \(filename) lines")
                Self.assertTally(summary.functions, expected["functions"], "\(sample) \(filename) functions")
                Self.assertTally(summary.instantiations, expected["instantiations"], "\(sample) \(filename) instantiations")
                Self.assertTally(summary.regions, expected["regions"], "\(sample) \(filename) regions")
                if !hasBranches { Self.assertTally(summary.branches, expected["branches"], "\(sample) \(filename) branches") }
                checked += 1
            }
            let totals = try XCTUnwrap(try Self.exportData(sample)["totals"] as? [String: Any])
            let mine = NativeSummaries.totals(summaries)
            Self.assertTally(mine.lines, totals["lines"], "\(sample) totals lines")
            Self.assertTally(mine.functions, totals["functions"], "\(sample) totals functions")
            Self.assertTally(mine.instantiations, totals["instantiations"], "\(sample) totals instantiations")
            Self.assertTally(mine.regions, totals["regions"], "\(sample) totals regions")
            if !hasBranches { Self.assertTally(mine.branches, totals["branches"], "\(sample) totals branches") }
            print("oracle \(sample): \(functions.count) functions, \(files.count) files, \(segmentCount) segments, \(checked) summaries: equal")
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

    /// `sample` is a directory of sample-profiles/recorded (its coverage.json) or `<directory>/<file>.json`.
    static func url(_ sample: String) -> URL {
        sample.hasSuffix(".json") ? RecordedSamples.repoRoot.appendingPathComponent("sample-profiles/recorded/\(sample)")
            : RecordedSamples.file(sample, "coverage.json")
    }

    static func countedFunctions(_ sample: String) throws -> [CountedFunction] {
        var functions: [CountedFunction] = []
        _ = try LLVMCovExportReader(onFile: { _ in }, onFunction: { functions.append(CountedFunction($0)) })
            .read(url(sample))
        return functions
    }

    static func exportData(_ sample: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url(sample)))
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
