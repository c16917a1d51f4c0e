import TestscopeExecution
import XCTest
@testable import TestscopeReports

final class XMLTextTests: XCTestCase {
    /// The byte scan that skips escaping, and the escaping on bytes, agree with XML's rules applied scalar by scalar.
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
                XCTAssertEqual(fast, Self.oracle(text, attribute: attribute), "\(Array(text.unicodeScalars))")
                if fast == text { unchanged += 1 } else { changed += 1 }
            }
        }
        // Both paths were exercised.
        XCTAssertGreaterThan(changed, 1_000)
        XCTAssertGreaterThan(unchanged, 1_000)
    }

    /// XML 1.0's rules scalar by scalar (how Testscope escaped before it worked on bytes).
    static func oracle(_ raw: String, attribute: Bool) -> String {
        var out = ""
        for scalar in ANSI.strip(raw).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "'" where attribute: out += "&apos;"
            case "\n" where attribute: out += "&#10;"
            case "\r" where attribute: out += "&#13;"
            case "\t" where attribute: out += "&#9;"
            case "\n", "\r", "\t": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                out += v < 0x20 || v == 0xFFFE || v == 0xFFFF ? "\u{FFFD}" : String(scalar)
            }
        }
        return out
    }

    func testWhatTheEscapingDoes() {
        XCTAssertEqual(XMLText.attribute("a<b>&\"c'\n\t\u{1B}[1md\u{FFFF}"), "a&lt;b&gt;&amp;&quot;c&apos;&#10;&#9;d\u{FFFD}")
        XCTAssertEqual(XMLText.content("x\ny\u{0}"), "x\ny\u{FFFD}")
        XCTAssertEqual(XMLText.content("Sources/Plain/File.swift"), "Sources/Plain/File.swift")
    }
}
