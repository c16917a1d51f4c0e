import Foundation
import XCTest
@testable import TestscopeCoverage
@testable import TestscopeReports

/// Testscope's own Swift highlighting, escaping, count abbreviation and page names.
final class HTMLHighlighterTests: XCTestCase {
    /// The highlighted pieces of `code` as "class:text".
    func pieces(_ code: String) -> [String] {
        let bytes = Array(code.utf8)
        return SwiftHighlighter.tokens(bytes).map { "\($0.kind.rawValue):" + String(decoding: bytes[$0.start..<$0.end], as: UTF8.self) }
    }

    func testKeywordsTypesNumbersAttributesAndDirectives() {
        XCTAssertEqual(pieces("@MainActor public func f(_ x: Int) -> Double { return 0x1F + 1_000.5e-3 }"),
                       ["a:@MainActor", "k:public", "k:func", "t:Int", "t:Double", "k:return", "n:0x1F", "n:1_000.5e-3"])
        XCTAssertEqual(pieces("#if DEBUG\nlet a = b.default + x.self + T.init() + 1..<3\n#endif"),
                       ["d:#if", "t:DEBUG", "k:let", "k:self", "t:T", "k:init", "n:1", "n:3", "d:#endif"])
        XCTAssertEqual(pieces("let x1 = y2; $0.count"), ["k:let"], "digits inside identifiers are not numbers")
    }

    /// Keywords, and after a `.` only the member keywords.
    func testKeywordsAndMemberKeywords() {
        XCTAssertEqual(pieces("Self Protocol Type Any x.Type y.any"), ["k:Self", "k:Protocol", "k:Type", "k:Any", "k:Type"])
    }

    func testStringsWithInterpolationEscapesRawAndMultiline() {
        XCTAssertEqual(pieces(#"let s = "a \(b + "c") \"d\"" // e"#),
                       [#"k:let"#, #"s:"a \("#, #"s:"c") \"d\"""#, "c:// e"], "adjacent string pieces merge")
        XCTAssertEqual(pieces(##"x = #"raw "quoted" \(not) \#(yes)"#"##),
                       [##"s:#"raw "quoted" \(not) \#("##, ##"s:)"#"##])
        XCTAssertEqual(pieces("let m = \"\"\"\n  line \"one\"\n  \"\"\" + 1"), ["k:let", "s:\"\"\"\n  line \"one\"\n  \"\"\"", "n:1"])
        XCTAssertEqual(pieces("f(\"unterminated\nlet"), ["s:\"unterminated", "k:let"], "a single-line string ends at the line end")
    }

    func testCommentsNestAndHideEverythingInside() {
        XCTAssertEqual(pieces("/* a /* b */ \"c\" */ let /// doc \"x\""), ["c:/* a /* b */ \"c\" */", "k:let", "c:/// doc \"x\""])
        XCTAssertEqual(pieces("`func` `<script>\"`"), [], "a quoted identifier is never a keyword or a string")
    }

    func testDeepInterpolationsAreBoundedNotRecursedForever() {
        let code = String(repeating: "\"\\(", count: 5000) + String(repeating: ")\"", count: 5000)
        XCTAssertFalse(SwiftHighlighter.tokens(Array(code.utf8)).isEmpty)
    }

    func testEscapingAndInlineScripts() {
        XCTAssertEqual(HTMLEscaping.escape(#"<a href="x">'&amp;'</a>"#), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;amp;&#39;&lt;/a&gt;")
        XCTAssertEqual(HTMLEscaping.escape("plain é ✓"), "plain é ✓")
        XCTAssertEqual(HTMLEscaping.inlineElementText("a</script>b</style>"), #"a<\/script>b<\/style>"#)
    }

    func testCountsAreAbbreviatedLikeLLVMCovShowAndNeverOverstated() {
        let cases: [(UInt64, String)] = [(0, "0"), (999, "999"), (1000, "1.00k"), (1505, "1.50k"), (1999, "1.99k"), (12_345, "12.3k"),
                                         (999_999, "999k"), (1_000_000, "1.00M"), (45_600_000_000, "45.6G"), (UInt64.max, "18.4E")]
        for (count, text) in cases { XCTAssertEqual(HTMLFormat.abbreviatedCount(count), text, "\(count)") }
    }

    func testPageNamesAreSafeUniqueAndBounded() {
        let paths = ["Sources/A/B.swift", "Sources/A.B.swift", "sources/a/b.swift", "../../etc/passwd", "/abs/x.swift",
                     "Sources/<script>&'q'.swift", String(repeating: "deep/", count: 60) + "File.swift", ".hidden", ""]
        let names = HTMLPageNames.pages(for: paths)
        XCTAssertEqual(names[0], "Sources.A.B.swift.html")
        XCTAssertEqual(names[1], "Sources.A.B.swift-2.html")
        XCTAssertEqual(names[2], "sources.a.b.swift-3.html", "unique on case-insensitive file systems too")
        XCTAssertEqual(names[3], "etc.passwd.html")
        XCTAssertEqual(names[5], "Sources._script___q_.swift.html")
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count)
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        for name in names {
            XCTAssertTrue(name.unicodeScalars.allSatisfy(allowed.contains), name)
            XCTAssertFalse(name.hasPrefix("."), name)
            XCTAssertLessThanOrEqual(name.utf8.count, HTMLPageNames.maximumLength + 10, name)
        }
        XCTAssertTrue(names[6].hasSuffix("File.swift.html"))
    }
}
