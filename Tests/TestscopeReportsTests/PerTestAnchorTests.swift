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
