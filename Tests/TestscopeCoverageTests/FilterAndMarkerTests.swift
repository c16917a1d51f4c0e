import XCTest
@testable import TestscopeCoverage
import TestscopeTestSupport

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

    func testRelativePaths() {
        XCTAssertEqual(SourceFilter(root: "/pkg").relativePath("/pkg/Sources/./A//a.swift"), "Sources/A/a.swift")
        XCTAssertNil(SourceFilter(root: "/pkg").relativePath("/pkgs/a.swift"))
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

    /// Line splitting and the UTF-8 check against a plain reference (split on LF, one CR before it
    /// dropped; `String(validating:)`), on seeded random texts of ASCII, UTF-8 and stray bytes.
    func testLinesAndValidityAgreeWithAPlainReference() {
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 33 }
        let pieces: [[UInt8]] = [Array("let x = 1".utf8), [0x0A], [0x0D, 0x0A], [0x0D], Array("é✓".utf8), [0xFF], [0xC3], [0x20], [], Array("// testscope:ignore".utf8)]
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(next() % 12) { bytes += pieces[Int(next() % UInt64(pieces.count))] }
            let source = SourceText(bytes: bytes)
            var expected: [Range<Int>] = []
            var start = 0
            for (i, b) in bytes.enumerated() where b == 0x0A {
                expected.append(start..<(i > start && bytes[i - 1] == 0x0D ? i - 1 : i))
                start = i + 1
            }
            if start < bytes.count { expected.append(start..<bytes.count) }
            XCTAssertEqual(source.lineRanges, expected, "\(bytes)")
            XCTAssertEqual(source.isValidUTF8, String(validating: bytes, as: UTF8.self) != nil, "\(bytes)")
            // The marker search (pivoting on its `:`) finds a marker wherever a line-by-line scan does.
            let marked = source.lineRanges.contains { range in
                ExclusionMarkers.markerKind(bytes[range], marker: Array(ExclusionMarkers.line.utf8)) != nil
            }
            XCTAssertEqual(!ExclusionMarkers.excludedLines(in: source).lines.isEmpty, marked, "\(bytes)")
        }
        // A marker as the whole file, at its very start and its very end.
        for text in ["//testscope:ignore", "// testscope:ignore", "a\n//testscope:ignore"] {
            XCTAssertFalse(ExclusionMarkers.excludedLines(in: SourceText(bytes: Array(text.utf8))).lines.isEmpty, text)
        }
    }

    /// `.` and `..` components and doubled slashes go; a `.` that a combining mark joins is a name.
    func testNormalizedPaths() {
        XCTAssertEqual(SourceFilter.normalized("/a/./b//c/../d.swift"), "/a/b/d.swift")
        XCTAssertEqual(SourceFilter.normalized("/a/b.swift"), "/a/b.swift")
        XCTAssertEqual(SourceFilter.normalized("a/.hidden/x"), "a/.hidden/x")
        XCTAssertEqual(SourceFilter.normalized("/pkg/Sources/.\u{301}x/"), "/pkg/Sources/.\u{301}x/", "unchanged, trailing slash kept")
    }

    /// Byte-wise string helpers: prefixes as bytes (not canonical equivalence), and hashes that
    /// depend on every byte and on the length.
    func testByteStringHelpers() {
        XCTAssertNotEqual(ByteString.hash("ab"), ByteString.hash("ba"))
        XCTAssertNotEqual(ByteString.hash(""), ByteString.hash("\0"))
        XCTAssertNotEqual(ByteString.hash("12345678"), ByteString.hash("123456789"))
        XCTAssertNotEqual(ByteString.hash("x", seed: 1), ByteString.hash("x", seed: 2))
        XCTAssertEqual(ByteString.asciiHash("$s1M1fyyF"), ByteString.hash("$s1M1fyyF"))
        XCTAssertNil(ByteString.asciiHash("f(π:)"))
        var seen = Set<UInt64>()
        for i in 0..<50_000 { seen.insert(ByteString.hash("$s5Synth4Unit\(i)yyF")) }
        XCTAssertEqual(seen.count, 50_000, "no collision among similar names")
    }

    /// `hasCode` (read through unchecked buffers) against a plain reference on seeded lines and
    /// columns, among them columns past the end of a line (a source edited since the run), lines
    /// past the end of the file, an empty file, and ends before starts.
    func testHasCodeAgreesWithAPlainReference() {
        var seed: UInt64 = 0xC0DE
        func next() -> UInt64 { seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return seed >> 33 }
        let pieces: [[UInt8]] = [Array("x = f(1)".utf8), Array("  }".utf8), Array(");".utf8), [0x0A], [0x0D, 0x0A], [0x09], Array("é".utf8), [0x20], []]
        for _ in 0..<1_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(next() % 10) { bytes += pieces[Int(next() % UInt64(pieces.count))] }
            let source = SourceText(bytes: bytes)
            for _ in 0..<20 {
                let line = UInt32(next() % UInt64(source.lineCount + 3))
                let from = UInt32(next() % 14)
                let to: UInt32? = next() % 4 == 0 ? nil : UInt32(next() % 16)
                var expected = true
                if line >= 1 && Int(line) <= source.lineCount {
                    let text = Array(bytes[source.lineRanges[Int(line) - 1]])
                    let lower = max(Int(from), 1) - 1
                    let upper = min(text.count, to.map { Int($0) - 1 } ?? text.count)
                    expected = lower < upper && text[lower..<upper].contains { !" \t})];,".utf8.contains($0) }
                }
                XCTAssertEqual(source.hasCode(line: line, from: from, to: to), expected, "\(bytes) line \(line) \(from)..<\(String(describing: to))")
            }
        }
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
        let report = CoverageReport(files: [file.summarized, other.summarized], metadata: ReportMetadata(packageRoot: "/p", inputs: [], toolchain: nil, createdAt: ""))
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
