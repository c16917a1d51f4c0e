import XCTest
@testable import TestscopeReports

final class XMLTextTests: XCTestCase {
    /// The byte scan that skips escaping must never skip a string the escaping would change.
    func testTheFastPathAgreesWithTheEscapingOnSeededStrings() {
        let pieces = ["a", "Sources/Foo.swift", "é", "🙂", "&", "<", ">", "\"", "'", "\n", "\r", "\t", "\u{1B}[31m", "\u{1B}]8;;x\u{07}",
                      "\u{0}", "\u{1F}", "\u{7F}", "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{EFBF}", "\u{10FFFF}", "e\u{301}"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var changed = 0, unchanged = 0
        for _ in 0..<5_000 {
            let text = (0..<(next() % 6)).map { _ in pieces[next() % pieces.count] }.joined()
            for attribute in [false, true] {
                let fast = XMLText.escape(text, attribute: attribute)
                XCTAssertEqual(fast, XMLText.escapeScalars(text, attribute: attribute), "\(Array(text.unicodeScalars))")
                if fast == text { unchanged += 1 } else { changed += 1 }
            }
        }
        // Both paths were exercised.
        XCTAssertGreaterThan(changed, 1_000)
        XCTAssertGreaterThan(unchanged, 1_000)
    }

    func testWhatTheEscapingDoes() {
        XCTAssertEqual(XMLText.attribute("a<b>&\"c'\n\t\u{1B}[1md\u{FFFF}"), "a&lt;b&gt;&amp;&quot;c&apos;&#10;&#9;d\u{FFFD}")
        XCTAssertEqual(XMLText.content("x\ny\u{0}"), "x\ny\u{FFFD}")
        XCTAssertEqual(XMLText.content("Sources/Plain/File.swift"), "Sources/Plain/File.swift")
    }
}
