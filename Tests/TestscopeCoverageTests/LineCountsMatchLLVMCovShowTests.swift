import XCTest
@testable import TestscopeCoverage

/// Per-line counts must equal the toolchain's `llvm-cov show` on every line of every file,
/// checked on the recorded exports against `llvm-cov show` / `llvm-cov export -format=lcov`
/// output recorded from the same profile.
final class LineCountsMatchLLVMCovShowTests: XCTestCase {
    func testEveryLineOfEveryFileMatchesShow() throws {
        XCTAssertTrue(Set(RecordedSamples.names).isSuperset(of: ["Shapes", "Inventory", "Crashy", "Hostile"]), "\(RecordedSamples.names)")
        for sample in RecordedSamples.names {
            let segments = try RecordedSamples.segments(sample)
            let show = try RecordedSamples.showCounts(sample)
            XCTAssertEqual(Set(segments.keys), Set(show.keys), "\(sample): the same files")
            var compared = 0
            for (path, fileSegments) in segments {
                let ours = Dictionary(uniqueKeysWithValues: LineCoverageBuilder.lines(from: fileSegments).map { (Int($0.line), $0.count) })
                let expected = try XCTUnwrap(show[path])
                XCTAssertFalse(expected.isEmpty, path)
                for (line, printed) in expected {
                    if ours[line] == LineCoverage.unreliableCount {
                        XCTAssertTrue(RecordedSamples.isWrapped(printed), "\(sample) \(path):\(line): unknown for us, \(printed) in show")
                    } else {
                        XCTAssertEqual(ours[line].map(RecordedSamples.llvmFormatCount) ?? "", printed, "\(sample) \(path):\(line)")
                    }
                    compared += 1
                }
                for line in ours.keys { XCTAssertNotNil(expected[line], "\(path):\(line) is executable for us but not in show") }
            }
            XCTAssertGreaterThan(compared, 300, sample)
        }
    }

    func testExactCountsMatchLLVMCovLcovExport() throws {
        for sample in RecordedSamples.names {
            let segments = try RecordedSamples.segments(sample)
            let lcov = try RecordedSamples.lcovCounts(sample)
            for (path, fileSegments) in segments {
                let ours = Dictionary(uniqueKeysWithValues: LineCoverageBuilder.lines(from: fileSegments).map { (Int($0.line), $0.count) })
                XCTAssertEqual(ours, lcov[path] ?? [:], "\(sample) \(path)")
            }
        }
    }

    /// The model built through filters and markers keeps exactly show's counts for the lines it keeps.
    func testModelLinesAreShowLinesMinusExcluded() throws {
        for sample in RecordedSamples.names {
            let root = RecordedSamples.packageRoot(sample)
            let options = CoverageBuildOptions(
                packageRoot: root, layout: .conventional(root: root),
                filter: SourceFilter(root: root.path),
                pathEquivalences: [PathEquivalence(from: try RecordedSamples.recordedRoot(sample), to: root.path)])
            let report = try CoverageBuilder(options: options).build(exports: [RecordedSamples.file(sample, "coverage.json")])
            let lcov = try RecordedSamples.lcovCounts(sample)
            let recordedRoot = try RecordedSamples.recordedRoot(sample)
            XCTAssertFalse(report.files.isEmpty)
            for file in report.files {
                let expected = try XCTUnwrap(lcov[recordedRoot + "/" + file.relativePath], file.relativePath)
                let excluded = Set(file.excludedLines.map(Int.init))
                let kept = expected.filter { !excluded.contains($0.key) }
                XCTAssertEqual(Dictionary(uniqueKeysWithValues: file.lines.map { (Int($0.line), $0.count) }), kept, file.relativePath)
                XCTAssertEqual(file.summary.lines.total, kept.count)
                XCTAssertEqual(file.summary.lines.covered, kept.values.filter { $0 > 0 && $0 != LineCoverage.unreliableCount }.count)
            }
        }
    }
}
