import Foundation
import Mustache
@testable import TestscopeReports
import TestscopeExecution
import TestscopeTemplates
import XCTest

/// Testscope's template renderer renders what the Mustache library renders, on templates written to hit
/// the parser's whitespace rules, long lists and lookups; templates outside its subset are refused.
final class CompiledTemplateTests: XCTestCase {
    /// Renders `name` from `texts` both ways; nil for the compiled side when it does not compile.
    func both(_ texts: [String: String], _ name: String, _ context: Any) throws -> (compiled: String?, library: String) {
        var library = MustacheLibrary()
        for (key, text) in texts { library.register(try MustacheTemplate(string: text), named: key) }
        var compiled: [String: CompiledTemplate] = [:]
        for (key, text) in texts { compiled[key] = CompiledTemplate(text) }
        return (CompiledTemplates(templates: compiled).render(name, context), library.render(context, withTemplate: name) ?? "")
    }

    func testEveryBuiltInTemplateCompiles() throws {
        let compiled = try HTMLTemplates.builtIn().compiled.templates
        for name in HTMLTemplates.templateNames { XCTAssertNotNil(compiled[name], name) }
    }

    func testWhitespaceSectionsPartialsAndLookupsAsTheLibrary() throws {
        let context: [String: Any] = [
            "name": "a <b> & \"c\" 'd'", "count": 3, "flag": true, "off": false, "none": NSNull(),
            "items": [["x": "1", "y": ["z": "deep"]], ["x": "2"]], "empty": [String](), "words": ["p", "q"],
            "nested": ["name": "inner", "more": ["leaf": "L"]], "opt": Optional<String>.none as Any,
        ]
        let texts: [String: String] = [
            "main": """
              {{#items}}
                <li>{{x}} {{y.z}} {{name}}</li>
              {{/items}}
            {{^empty}}none here{{/empty}}
             {{! a standalone comment }}
            text {{! inline comment }} after
              {{>part}}
            {{#nested}}{{name}} {{more.leaf}} {{.name}} {{count}}{{/nested}}
            {{#words}}[{{.}}]{{/words}} {{#flag}}yes{{/flag}}{{^off}}no{{/off}} {{#none}}N{{/none}}{{^none}}not{{/none}}
            {{{name}}} {{&name}} {{missing}} {{opt}} {{#count}}{{.}}{{/count}}
            \t{{#flag}}\r\n  crlf\r\n{{/flag}}
            {{#items}}{{#y}}{{z}}{{/y}}{{/items}} end
            """,
            "part": "line one\n{{#words}}\n  w {{.}}\n{{/words}}\n{{>leaf}}\nlast",
            "leaf": "\tleaf {{name}}\n\tsecond\n  {{>crlf}}\n",
            "crlf": "a\r\n{{name}}\r\nb\n{{name}}",
        ]
        let (compiled, library) = try both(texts, "main", context)
        XCTAssertEqual(compiled, library)
        XCTAssertTrue(library.contains("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;"), library)
    }

    /// A long list (rendered a chunk per core) renders as the library renders it, in order: elements of
    /// varied lengths, each in an indented partial with nested sections, CRLF and lines that end or
    /// begin a piece, and lookups that reach below the element on the stack.
    func testLongListsRenderOnEveryCoreAsTheLibrary() throws {
        let count = CompiledTemplates.parallelSection * 3 + 7
        let items: [[String: Any]] = (0..<count).map { i in
            ["n": String(i), "text": String(repeating: "<x>", count: i % 5), "flag": i % 3 == 0,
             "subs": (0..<(i % 4)).map { ["s": "\(i).\($0)"] }]
        }
        let context: [String: Any] = ["items": items, "title": "T & t", "short": [["n": "only"]]]
        let texts: [String: String] = [
            "main": "head {{title}}\n  {{>rows}}\n{{#short}}{{n}}{{/short}}\nend\n",
            "rows": "<ul>\n{{#items}}\n  <li>{{n}} {{text}} {{title}}{{#flag}}\r\n    flagged\r\n{{/flag}}\n{{#subs}}  - {{s}}\n{{/subs}}</li>\n{{/items}}\n</ul>",
        ]
        let (compiled, library) = try both(texts, "main", context)
        XCTAssertEqual(compiled, library)
        XCTAssertTrue(library.contains("<li>\(count - 1) "), "every element is rendered")
    }

    /// A name is read as the library reads it, with `Character` equality: U+212A KELVIN SIGN is `K`
    /// (canonically equivalent), so `{{\u{212A}}}` names the same value as `{{K}}`.
    func testNamesWithACanonicallyEquivalentCharacterAsTheLibrary() throws {
        let texts = ["main": "{{\u{212A}}} {{#K}}[{{.}}]{{/\u{212A}}} {{> \u{212A}p}}", "Kp": "part {{K}}"]
        XCTAssertNotNil(CompiledTemplate(texts["main"]!))
        let (compiled, library) = try both(texts, "main", ["K": "k"])
        XCTAssertEqual(compiled, library)
        XCTAssertEqual(library, "k [k] part k")
    }

    /// Valid Mustache outside the subset: not compiled, and a user's template using it is refused by name
    /// (it rendered through the library before).
    func testTemplatesOutsideTheSubsetAreRefused() throws {
        for text in ["{{uppercased(name)}}", "{{=<% %>=}}<%name%>", "{{<parent}}{{$b}}x{{/b}}{{/parent}}", "{{>*dynamic}}",
                     "{{%CONTENT_TYPE:TEXT}}", "{{#a}}unclosed"] {
            XCTAssertNil(CompiledTemplate(text), text)
        }
        for (file, text) in [("totals.mustache", "{{=<% %>=}}<%package%>"), ("function-row.mustache", "{{#name}}{{uppercased(name)}}{{/name}}")] {
            var files = BundledTemplates.files
            files[file] = text
            XCTAssertThrowsError(try HTMLTemplates(files: files, overridden: [file: "mine/" + file], origin: "mine")) {
                XCTAssertEqual($0 as? ReportError, .templateUnsupported(path: "mine/" + file))
            }
        }
    }
}
