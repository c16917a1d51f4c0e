import XCTest
@testable import TestscopeCoverage

final class FilterAndMarkerTests: XCTestCase {
    func testGlobs() throws {
        XCTAssertTrue(try Glob("Sources/**").matches("Sources/A/b.swift"))
        XCTAssertTrue(try Glob("**/Legacy/*.swift").matches("Sources/Core/Legacy/x.swift"))
        XCTAssertFalse(try Glob("Sources/*.swift").matches("Sources/A/b.swift"))
        XCTAssertTrue(try Glob("*Generated*.swift").matches("Sources/A/MyGenerated1.swift"))
        XCTAssertTrue(try Glob("Sources/?/b.swift").matches("Sources/A/b.swift"))
        XCTAssertThrowsError(try Glob(""))
    }

    func testDefaultFilter() throws {
        let filter = SourceFilter(root: "/pkg", testDirectories: ["Tests", "Checks/Unit"])
        XCTAssertTrue(filter.includes("/pkg/Sources/A/a.swift"))
        XCTAssertFalse(filter.includes("/pkg/Tests/ATests/a.swift"))
        XCTAssertFalse(filter.includes("/pkg/Checks/Unit/a.swift"))
        XCTAssertFalse(filter.includes("/pkg/.build/checkouts/dep/Sources/x.swift"))
        XCTAssertFalse(filter.includes("/pkg/.build/x86_64-unknown-linux-gnu/debug/PkgPackageTests.derived/runner.swift"))
        XCTAssertFalse(filter.includes("/pkg/.build-ci/x.swift"))
        XCTAssertFalse(filter.includes("/other/Sources/a.swift"))
        XCTAssertFalse(filter.includes("/pkgx/Sources/a.swift"))
    }

    func testIncludeAndExcludeGlobs() throws {
        let filter = SourceFilter(root: "/pkg", include: [try Glob("Tests/**"), try Glob("Sources/**")], exclude: [try Glob("**/Legacy/**")])
        XCTAssertTrue(filter.includes("/pkg/Tests/T/a.swift"))
        XCTAssertFalse(filter.includes("/pkg/Sources/A/Legacy/old.swift"))
        XCTAssertFalse(filter.includes("/pkg/Package.swift"))
    }

    func testMarkers() {
        let text = """
        let a = 1 // testscope:ignore
        let b = 2
        // testscope:ignore:start
        let c = 3
        // testscope:ignore:end
        let d = "testscope:ignore" // a string, not a comment marker
        /* testscope:ignore */ let e = 5
        // testscope:ignorexyz is not a marker
        """
        let result = ExclusionMarkers.excludedLines(in: SourceText(bytes: Array(text.utf8)))
        XCTAssertEqual(result.lines, [1, 3, 4, 5, 7])
        XCTAssertNil(result.unclosedBlockAt)
        let open = ExclusionMarkers.excludedLines(in: SourceText(bytes: Array("a\n// testscope:ignore:start\nb\nc".utf8)))
        XCTAssertEqual(open.lines, [2, 3, 4])
        XCTAssertEqual(open.unclosedBlockAt, 2)
    }

    func testNonUTF8SourceIsReadable() {
        let source = SourceText(bytes: [0x61, 0xFF, 0x0A, 0x62])
        XCTAssertFalse(source.isValidUTF8)
        XCTAssertEqual(source.lineCount, 2)
        XCTAssertEqual(source.line(2), "b")
    }

    func testPathEquivalence() throws {
        let eq = try PathEquivalence(parsing: "/old/root,/new")
        XCTAssertEqual(PathEquivalence.apply([eq], to: "/old/root/Sources/a.swift"), "/new/Sources/a.swift")
        XCTAssertEqual(PathEquivalence.apply([eq], to: "/old/rootx/a.swift"), "/old/rootx/a.swift")
        XCTAssertThrowsError(try PathEquivalence(parsing: "nocomma"))
    }

    func testClosureDetectionFromMangledNames() {
        XCTAssertTrue(SwiftDemangler.isMangledClosure("$s6Shapes7largestyxSgSayxGAA5ShapeRzlFSbx_xtXEfU_"))
        XCTAssertTrue(SwiftDemangler.isMangledClosure("$s6Shapes9totalArea_7onlyBigSdSayAA5Shape_pG_SbtFSbSdXEfU0_SbyKXEfu_"))
        XCTAssertFalse(SwiftDemangler.isMangledClosure("$s6Shapes4RectV4areaSdvg"))
        XCTAssertEqual(SwiftDemangler.symbol(in: "Sources/A/a.swift:$s1A1fyyF"), "$s1A1fyyF")
    }

    func testGate() throws {
        var file = FileCoverage(path: "/p/Sources/A/a.swift", relativePath: "Sources/A/a.swift", target: "A",
                                lines: [LineCoverage(line: 1, count: 1), LineCoverage(line: 2, count: 0)],
                                excludedLines: [], functions: [], summary: CoverageSummary(), sourceAvailable: true)
        file.summary.lines = CoverageRatio(covered: 1, total: 2)
        var other = file
        other.relativePath = "Sources/A/b.swift"
        other.summary.lines = CoverageRatio(covered: 9, total: 10)
        let report = CoverageReport(files: [file, other], metadata: ReportMetadata(packageRoot: "/p", inputs: [], toolchain: nil, createdAt: ""))
        XCTAssertEqual(report.totals.lines, CoverageRatio(covered: 10, total: 12))
        XCTAssertTrue(CoverageGate(lines: 80).evaluate(report).isEmpty)
        let failures = CoverageGate(lines: 90, perFileLines: 60).evaluate(report)
        XCTAssertEqual(failures.map(\.threshold), [.lines, .fileLines])
        XCTAssertEqual(failures[0].files.first?.path, "Sources/A/a.swift")
        XCTAssertEqual(failures[1].files.map(\.path), ["Sources/A/a.swift"])
        // 0/0 functions: nothing to measure fails a positive threshold.
        XCTAssertEqual(CoverageGate(functions: 1).evaluate(report).first?.measured, nil)
    }
}
