import XCTest
@testable import TestscopeReports

/// `PerTestAnchor`: a test's id on the Tests page (safe for any id, never shared by two ids) and its
/// chunk of `per-test/` (FNV-1a, which report.js computes too).
final class PerTestAnchorTests: XCTestCase {
    func testAnchorsAreSafeAndDistinctForAnyId() {
        XCTAssertEqual(PerTestAnchor.anchor("LibTests.ParserTests/testEmpty"), "test-LibTests.ParserTests_2FtestEmpty")
        XCTAssertEqual(PerTestAnchor.anchor("Lib.doubles(value:)"), "test-Lib.doubles_28value_3A_29")
        let hostile = ["a\"><script>alert(1)</script>", "a b\tc\n", "ü/é", "_2F", "/", "x_y", "x/y", "", "🙂", "--", "../../etc"]
        var seen: [String: String] = [:]
        for id in hostile {
            let anchor = PerTestAnchor.anchor(id)
            XCTAssertTrue(anchor.hasPrefix("test-"), anchor)
            XCTAssertTrue(anchor.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) },
                          "only letters, digits, . _ -: \(anchor)")
            XCTAssertNil(seen[anchor], "\(id) and \(seen[anchor] ?? "") share \(anchor)")
            seen[anchor] = id
        }
    }

    /// FNV-1a's published 32-bit test vectors (ASCII: one UTF-16 unit per byte), then the range of chunks.
    func testChunksAreFNV1aOfTheUTF16Units() {
        XCTAssertEqual(PerTestAnchor.chunk("a", of: Int(UInt32.max)), Int(0xe40c292c % UInt32.max))
        XCTAssertEqual(PerTestAnchor.chunk("foobar", of: Int(UInt32.max)), Int(0xbf9cf968 % UInt32.max))
        XCTAssertEqual(PerTestAnchor.chunk("", of: Int(UInt32.max)), Int(0x811c9dc5 % UInt32.max))
        for id in ["a", "ü/é", "LibTests.ParserTests/testEmpty"] {
            XCTAssertTrue((0..<3).contains(PerTestAnchor.chunk(id, of: 3)))
            XCTAssertEqual(PerTestAnchor.chunk(id, of: 1), 0)
        }
    }
}

/// The Tests page of a 1,000-test per-test run: it grows by each test's `id` only (what each test covered
/// is in `per-test/`, loaded on a click).
final class PerTestTestsPageSizeTests: XCTestCase {
    func testAThousandTestsAddOnlyTheirAnchors() throws {
        var run = try TestsHTMLFixture.results(crash: false)
        let template = try XCTUnwrap(run.results.first { $0.outcome == .passed && $0.framework == .xctest })
        run.results = (1...1000).map { n in
            var result = template
            result.id = "ManyTests.Suite\(n / 50)/testNumber\(n)"
            result.name = "testNumber\(n)"
            return result
        }
        let templates = try HTMLTemplates.builtIn()
        var page = TestsHTMLPage(templates: templates, generatorVersion: "test", packageRoot: TestsHTMLFixture.packageRoot,
                                 createdAt: Date(timeIntervalSince1970: 0))
        let plain = try page.renderString(run)
        page.perTestChunks = 16
        let perTest = try page.renderString(run)
        let anchors = run.results.reduce(0) { $0 + #" id=""#.utf8.count + PerTestAnchor.anchor($1.id).utf8.count + 1 }
        let attribute = #" data-per-test-chunks="16""#.utf8.count
        XCTAssertEqual(perTest.utf8.count - plain.utf8.count, anchors + attribute, "one id per test, nothing else")
        print("tests.html of 1,000 passed tests: \(plain.utf8.count) bytes plain, \(perTest.utf8.count) bytes in a per-test run")
    }
}
