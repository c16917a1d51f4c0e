import TestscopeCoverage
@testable import TestscopeImpact
import XCTest

final class SourceTokensTests: XCTestCase {
    func texts(_ source: String, _ language: SourceLanguage = .swift) -> [String] {
        SourceTokens.tokens(source, language: language).map(\.text)
    }

    func testCommentsAndWhitespaceAreNotTokens() {
        let a = "func f() -> Int {\n    return 1 + 2 // sum\n}\n"
        let b = "/* doc */ func f()->Int{ return 1+2 }"
        XCTAssertEqual(texts(a), texts(b))
        XCTAssertEqual(texts(a), ["func", "f", "(", ")", "->", "Int", "{", "return", "1", "+", "2", "}"])
    }

    func testANewlineBeforeAParenthesisIsNotWhitespaceInSwift() {
        XCTAssertNotEqual(texts("f()\n(x)"), texts("f()(x)"), "a new statement, not a call of f()'s result")
        XCTAssertEqual(texts("f(\n  x\n)"), texts("f(x)"))
        XCTAssertEqual(texts("f()\n(x)", .cFamily), texts("f()(x)", .cFamily))
    }

    func testSwiftBlockCommentsNestAndCCommentsDoNot() {
        XCTAssertEqual(texts("a /* x /* y */ z */ b"), ["a", "b"])
        XCTAssertEqual(texts("a /* x /* y */ z */ b", .cFamily), ["a", "z", "*/", "b"])
    }

    func testStringsAreSingleTokensWithCommentMarkersInside() {
        XCTAssertEqual(texts(#"let s = "a // b /* c" + x"#), ["let", "s", "=", #""a // b /* c""#, "+", "x"])
        XCTAssertEqual(texts(#"let s = "v: \(f("}")) end""#), ["let", "s", "=", #""v: \(f("}")) end""#])
        XCTAssertEqual(texts("let s = #\"a \"quoted\" \\(x)\"#; y"), ["let", "s", "=", "#\"a \"quoted\" \\(x)\"#", ";", "y"])
        let multi = "let s = \"\"\"\n  line \"one\" // not a comment\n  \"\"\"\nz"
        XCTAssertEqual(texts(multi), ["let", "s", "=", "\"\"\"\n  line \"one\" // not a comment\n  \"\"\"", "z"])
        XCTAssertEqual(texts(#"char c = '"'; s = "x\"y";"#, .cFamily), ["char", "c", "=", #"'"'"#, ";", "s", "=", #""x\"y""#, ";"])
    }

    func testNumbersAttributesAndDirectives() {
        XCTAssertEqual(texts("x = 1.5e-3 + 0xE+1; for i in 0..<10 {}"), ["x", "=", "1.5e-3", "+", "0xE", "+", "1", ";", "for", "i", "in", "0", "..<", "10", "{", "}"])
        XCTAssertEqual(texts("@inlinable public func f() {}\n#if DEBUG\n#endif"), ["@inlinable", "public", "func", "f", "(", ")", "{", "}", "#if", "DEBUG", "#endif"])
        XCTAssertEqual(SourceTokens.tokens("@inlinable", language: .swift).first?.kind, .word)
        XCTAssertEqual(SourceTokens.tokens("\"s\"", language: .swift).first?.kind, .string)
    }

    func testPositionsAreLinesAndUTF8Columns() {
        let tokens = SourceTokens.tokens("let é = 1\n  f()", language: .swift)
        XCTAssertEqual(tokens.map(\.start), [.init(line: 1, column: 1), .init(line: 1, column: 5), .init(line: 1, column: 8),
                                             .init(line: 1, column: 10), .init(line: 2, column: 3), .init(line: 2, column: 4), .init(line: 2, column: 5)])
        XCTAssertEqual(tokens[1].end, .init(line: 1, column: 7))
    }

    func testChecksumIgnoresCommentsAndWhitespace() {
        let a = SourceTokens.tokens("func f() {\n  g() // c\n}", language: .swift)
        let b = SourceTokens.tokens("func f() { g() }", language: .swift)
        let c = SourceTokens.tokens("func f() { h() }", language: .swift)
        func sum(_ t: [SourceToken]) -> UInt64 { SourceTokens.checksum(t, from: t[4].start, to: t.last!.end) }
        XCTAssertEqual(sum(a), sum(b))
        XCTAssertNotEqual(sum(b), sum(c))
    }

    func testDiffPlacesEachEdit() {
        let old = SourceTokens.tokens("a b c d e f g", language: .swift)
        let new = SourceTokens.tokens("a X c d e g Y", language: .swift)
        XCTAssertEqual(TokenDiff.edits(old, new), [TokenEdit(old: 1..<2, new: 1..<2), TokenEdit(old: 5..<6, new: 5..<5), TokenEdit(old: 7..<7, new: 6..<7)])
        XCTAssertEqual(TokenDiff.edits(old, old), [])
    }
}
